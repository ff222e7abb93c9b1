// SPDX-License-Identifier: Apache-2.0
//
// fmt's implementation, compiled once for the lean link. Debian ships libfmt
// only as a shared library; the lean link (release and bench presets) wants
// no shared library beyond libc and libm, and linking fmt header-only instead
// compiles fmt's implementation into every translation unit that formats
// (about 6 s each at -O2). This file builds it once from fmt's public
// format-inl.h, as fmt's own build does, with the explicit instantiations
// that <fmt/format.h> declares extern outside header-only mode.

#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl<char>(locale_ref) -> char;
template FMT_API auto decimal_point_impl<wchar_t>(locale_ref) -> wchar_t;
}  // namespace detail
FMT_END_NAMESPACE
