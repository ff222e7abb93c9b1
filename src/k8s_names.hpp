// SPDX-License-Identifier: Apache-2.0
#pragma once

// The names Kubernetes accepts, checked in one place for every name migplan
// writes into a manifest or a command (ConfigMap and node names, DRA device,
// counter and pool names, label values). The rules are the API server's
// validation (k8s.io/apimachinery/pkg/util/validation: IsDNS1123Label,
// IsDNS1123Subdomain, IsValidLabelValue). Shared by the commands, which
// refuse a bad name on the command line, and render/, which checks what it
// builds, so it lives beside quote.hpp rather than in one of those layers.

#include <cstddef>
#include <string>
#include <string_view>

namespace migplan::cli::k8s {

/// The longest DNS label (RFC 1123): device, counter and counter set names.
inline constexpr std::size_t max_dns_label = 63;
/// The longest DNS subdomain: object names (ConfigMap, node).
inline constexpr std::size_t max_dns_subdomain = 253;
/// The longest label value.
inline constexpr std::size_t max_label_value = 63;

/// What dns_subdomain() accepts, in words, for messages.
inline constexpr std::string_view dns_subdomain_rule =
    "parts between dots of lowercase letters, digits and '-', each starting and ending with a "
    "letter or digit";

/// A lowercase ASCII letter or a digit.
constexpr bool alnum_lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/// The form of an RFC 1123 label, of any length: lowercase letters, digits
/// and '-', starting and ending with a letter or digit.
constexpr bool dns_label_form(std::string_view s) {
  if (s.empty()) return false;
  if (!alnum_lower(s.front()) || !alnum_lower(s.back())) return false;
  for (const char c : s)
    if (!alnum_lower(c) && c != '-') return false;
  return true;
}

/// An RFC 1123 label: its form, at most 63 characters.
constexpr bool dns_label(std::string_view s) {
  return s.size() <= max_dns_label && dns_label_form(s);
}

/// An RFC 1123 subdomain as Kubernetes takes it: parts of a label's form
/// joined by '.', at most 253 characters in all ("a..b" and "a.-b" are not).
/// A part may be longer than 63 characters: IsDNS1123Subdomain checks each
/// part "without checking the max length" (isDNS1123LabelExceptMaxLength),
/// so a node or object name with a long first part is valid.
constexpr bool dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > max_dns_subdomain) return false;
  std::size_t from = 0;
  while (true) {
    const std::size_t dot = s.find('.', from);
    if (!dns_label_form(s.substr(from, dot == std::string_view::npos ? dot : dot - from)))
      return false;
    if (dot == std::string_view::npos) return true;
    from = dot + 1;
  }
}

/// A label value: empty, or at most 63 of [A-Za-z0-9-_.] starting and ending
/// with a letter or digit.
constexpr bool label_value(std::string_view s) {
  if (s.empty()) return true;
  if (s.size() > max_label_value) return false;
  const auto alnum = [](char c) { return alnum_lower(c) || (c >= 'A' && c <= 'Z'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (const char c : s)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

/// A profile name as a part of a label name: "+" is not allowed in a
/// Kubernetes label value, so it becomes "." as in NVIDIA's own labels
/// ("1g.5gb+me" -> "1g.5gb.me", "1g.24gb+me.all" -> "1g.24gb.me.all").
inline std::string label_word(std::string_view profile_name) {
  std::string out(profile_name);
  for (char& c : out)
    if (c == '+') c = '.';
  return out;
}

static_assert(dns_subdomain("custom-mig-config") && dns_subdomain("a.b-c.d"));
static_assert(!dns_subdomain("a..b") && !dns_subdomain("a.-b") && !dns_subdomain("-a"));
static_assert(!dns_label(std::string_view(
                  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")) &&
              dns_subdomain(std::string_view(
                  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")));
static_assert(label_value("all-1g.10gb") && !label_value("-x") && label_value(""));

}  // namespace migplan::cli::k8s
