// SPDX-License-Identifier: Apache-2.0
#pragma once

// What every SVG migplan writes shares: text made safe for XML.

#include <string>
#include <string_view>

namespace migplan::cli::render {

/// Text for XML content and attribute values: markup characters as entities,
/// characters XML 1.0 forbids (C0 controls but tab and newline) and invalid
/// UTF-8 as U+FFFD, so that any file or model name makes a well-formed document.
std::string xml_text(std::string_view s);

}  // namespace migplan::cli::render
