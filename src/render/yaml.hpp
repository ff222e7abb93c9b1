// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one writer of YAML scalars. Every YAML migplan writes is read by
// go-yaml v2 (Kubernetes, mig-parted, the GPU Operator), which resolves
// plain scalars by YAML 1.1 rules, and by yaml-cpp (migplan itself): a
// string goes out plain only where both read it back as that same string.

#include <string>
#include <string_view>

namespace migplan::cli::render {

/// `s` as a YAML double-quoted scalar: '"' and '\\' escaped, control
/// characters as \xNN, line separators and invisible code points as \uNNNN;
/// bytes that are not UTF-8 become U+FFFD (YAML text is Unicode, so a stray
/// byte cannot be written at all).
std::string yaml_quoted(std::string_view s);

/// `s` plain where go-yaml (YAML 1.1) and yaml-cpp read it back as the same
/// string, else yaml_quoted(s). Plain means: ASCII letters, digits, '.', '_',
/// '-' and '/', starting with a letter or digit, and not a word or number
/// YAML 1.1 resolves to another type (y, no, On, NULL, ~, 0x1F, 1_000, 1e3,
/// 2024-01-02, ...).
std::string yaml_scalar(std::string_view s);

}  // namespace migplan::cli::render
