// SPDX-License-Identifier: Apache-2.0
#include "io/schema.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "io/names.hpp"
#include "io/size.hpp"

namespace migplan::cli::doc {

const field* find(std::span<const field> fields, std::string_view key) {
  for (const field& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

std::string suggest(std::string_view s, std::span<const std::string> names) {
  return s.size() > 64 ? std::string() : did_you_mean(s, names);
}

std::string unknown_key_hint(std::string_view key, std::span<const std::string> names,
                             std::span<const key_hint> hints) {
  for (const key_hint& h : hints)
    if (h.key == key) return fmt::format(" ({})", h.hint);
  return suggest(key, names);
}

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7F;
  });
}

void walker::fail(position at, std::string message, std::string_view code) {
  fail(diagnostic{file_, at.line, at.column, std::string(code), severity::error,
                  std::move(message)});
}

void walker::fail(int line, std::string message, std::string_view code) {
  fail(position{line, 0, 0}, std::move(message), code);
}

void walker::fail(diagnostic d) {
  if (mode_ == mode::first && !found_.empty()) return;
  found_.push_back(std::move(d));
}

std::vector<field> walker::fields(const node& map, std::span<const std::string_view> known,
                                  std::string_view what, std::span<const key_hint> hints) {
  std::vector<field> out;
  for (std::size_t i = 0; i + 1 < map.kids.size(); i += 2) {
    const node& k = map.kids[i];
    if (!k.is_scalar()) {
      fail(k.at, fmt::format("a key of {} must be a name, not {}", what, value_text(k)),
           "key-type");
      if (mode_ == mode::first) return out;
      continue;
    }
    const std::string& key = k.text;
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      const std::vector<std::string> names(known.begin(), known.end());
      fail(k.at,
           fmt::format("unknown key {} in {}{}; the keys are {}", quote_token(key), what,
                       unknown_key_hint(key, names, hints), fmt::join(known, ", ")),
           "unknown-key");
      if (mode_ == mode::first) return out;
      continue;
    }
    if (const field* earlier = find(out, key)) {
      fail(k.at,
           fmt::format("duplicate key {} (first at line {})", quote_token(key),
                       earlier->key_at.line),
           "duplicate-key");
      if (mode_ == mode::first) return out;
      continue;
    }
    out.push_back({key, k.at, &map.kids[i + 1]});
  }
  return out;
}

bool walker::top_mapping(const node& root, std::string_view kind, std::string_view expected) {
  if (root.is_null()) {
    fail(0, fmt::format("empty file: a {} holds {}", kind, expected), "empty");
    return false;
  }
  if (!root.is_map()) {
    fail(root.at,
         fmt::format("expected a mapping with {} at the top level, not {}", expected,
                     value_text(root)),
         "type");
    return false;
  }
  return true;
}

bool walker::version(std::span<const field> top, std::string_view kinds) {
  const field* v = find(top, "version");
  if (v == nullptr) {
    fail(1, fmt::format("missing required key 'version' ({} start with 'version: 1')", kinds),
         "missing-key");
    return false;
  }
  const node& n = *v->value;
  if (n.is_scalar() && n.text == "1") {
    if (!n.quoted) return true;
    fail(v->at(), "version must be the number 1, not the string \"1\"", "type");
    return false;
  }
  fail(v->at(), fmt::format("unsupported version {}: {} are version 1", value_text(n), kinds),
       "version");
  return false;
}

const field* walker::need(std::span<const field> fields, std::string_view key, int line,
                          std::string_view why) {
  const field* f = find(fields, key);
  if (f == nullptr)
    fail(line, fmt::format("missing required key {} {}", quote_token(key), why), "missing-key");
  return f;
}

const node* walker::list(const field& f, std::string_view what, std::size_t most,
                         std::string_view items) {
  if (!f.value->is_list()) {
    fail(f.at(),
         fmt::format("{} must be {}, not {}", quote_token(f.key), what, value_text(*f.value)),
         "type");
    return nullptr;
  }
  if (f.value->size() > most) {
    fail(f.at(),
         fmt::format("{} lists {} {}; the most a file may list is {}", quote_token(f.key),
                     f.value->size(), items, most),
         "list-limit");
    return nullptr;
  }
  return f.value;
}

std::optional<std::string> walker::text(const field& f, std::string_view what) {
  const node& n = *f.value;
  if (n.is_null() || (n.is_scalar() && n.text.empty())) {
    fail(f.at(), fmt::format("{} is empty", what), "empty");
    return std::nullopt;
  }
  if (!n.is_scalar()) {
    fail(f.at(), fmt::format("{} must be text, not {}", what, value_text(n)), "type");
    return std::nullopt;
  }
  return n.text;
}

std::optional<std::string> walker::name(const field& f, std::string_view what,
                                        std::size_t longest) {
  auto s = text(f, what);
  if (!s) return s;
  if (s->size() > longest) {
    fail(f.at(), fmt::format("{} {} is longer than {} characters", what, quote_token(*s), longest),
         "range");
    return std::nullopt;
  }
  if (has_control(*s)) {
    fail(f.at(), fmt::format("{} {} holds a control character", what, quote_token(*s)), "range");
    return std::nullopt;
  }
  return s;
}

std::optional<long long> walker::whole(const field& f, std::string_view what, long long low,
                                       long long high) {
  const node& n = *f.value;
  if (n.is_null()) {
    fail(f.at(), fmt::format("{} is empty: expected a whole number from {} to {}", what, low, high),
         "empty");
    return std::nullopt;
  }
  if (!n.is_scalar()) {
    fail(f.at(),
         fmt::format("{} must be a whole number from {} to {}, not {}", what, low, high,
                     value_text(n)),
         "type");
    return std::nullopt;
  }
  if (n.quoted) {
    fail(f.at(),
         fmt::format("{} must be a number, not the string \"{}\"", what, clip_token(n.text)),
         "type");
    return std::nullopt;
  }
  auto v = parse_whole_number(what, n.text, low, high);
  if (!v) {
    fail(f.at(), v.error().message, "range");
    return std::nullopt;
  }
  return *v;
}

std::optional<bool> walker::flag(const field& f, std::string_view what) {
  const node& n = *f.value;
  bool v = false;
  if (n.is_scalar() && !n.quoted && core_bool(n.text, v)) return v;
  fail(f.at(), fmt::format("{} must be true or false, not {}", what, value_text(n)), "type");
  return std::nullopt;
}

}  // namespace migplan::cli::doc
