// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the readers that walk nlohmann's SAX events share: a handler that
// accepts every event (a reader overrides the few it looks at), and an
// iterator that counts how far the lexer has read, for an event's position.
// Internal to src/io.

#include <cstddef>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace migplan::cli {

/// A SAX handler that accepts every value and keeps the first syntax error:
/// on its own, a syntax check.
class json_sax_base : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::optional<std::size_t> byte;  ///< where the syntax error is (nlohmann's position)
  std::string what;                 ///< nlohmann's message

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    byte = position;
    what = e.what();
    return false;
  }
};

/// A character iterator that counts, in a counter it shares with the
/// reader, how many bytes nlohmann's lexer has taken: an event's value then
/// ends at or before that count.
class counting_iterator {
 public:
  using iterator_category = std::input_iterator_tag;  ///< read once, forward
  using value_type = char;                            ///< see iterator_category
  using difference_type = std::ptrdiff_t;             ///< see iterator_category
  using pointer = const char*;                        ///< see iterator_category
  using reference = const char&;                      ///< see iterator_category

  /// At `p`, counting into `*taken`.
  counting_iterator(const char* p, std::size_t* taken) : p_(p), taken_(taken) {}
  /// The character here.
  reference operator*() const { return *p_; }
  /// The next character, one more byte taken.
  counting_iterator& operator++() {
    ++p_;
    ++*taken_;
    return *this;
  }
  /// See the prefix form.
  counting_iterator operator++(int) {
    counting_iterator old = *this;
    ++*this;
    return old;
  }
  /// Same position.
  bool operator==(const counting_iterator& o) const { return p_ == o.p_; }
  /// Not the same position.
  bool operator!=(const counting_iterator& o) const { return p_ != o.p_; }

 private:
  const char* p_;
  std::size_t* taken_;
};

}  // namespace migplan::cli
