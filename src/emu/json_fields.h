// Reading the fields of a JSON object from outside, strictly and by one set of rules, for
// the three readers that take JSON from outside: the wire protocol (emu/protocol.h), the
// controller's API (emu/controller/api.h) and the journal (emu/controller/journal.h). A field
// that is missing, of the wrong type, negative or fractional where an integer is wanted, or
// out of range is refused with a message naming its path ("reports[2].rank: expected an
// unsigned integer, got -1") and the HTTP status that says so (ProtocolError): the network
// answers it, the journal's reader puts its file and line in front.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace schedlab::emu {

// Why a message was refused, and the HTTP status that says so (400 malformed or wrong type,
// 426 another protocol version; routes add 401, 404, 405, 409 and 413).
struct ProtocolError {
  int http_status = 400;
  std::string message;
};

// A message or the reason it was refused. A tiny std::expected (C++23) for C++20.
template <class T>
class Parsed {
 public:
  Parsed(T value) : v_(std::move(value)) {}                // NOLINT: implicit on purpose
  Parsed(ProtocolError error) : v_(std::move(error)) {}    // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  // Only when ok().
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  // Only when !ok().
  const ProtocolError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ProtocolError> v_;
};

// Serialises for the wire. Never throws: strings that are not valid UTF-8 (a path from a
// request line, say) are written with U+FFFD in place of the bad bytes.
std::string dump_json(const nlohmann::json& j);

// What a value is, for "expected X, got Y": short values as JSON, others named by type
// ("an object", "a string").
std::string describe_value(const nlohmann::json& v);

// Thrown by FieldReader and caught by parse_message() (emu/protocol.h) or the journal's
// reader; never escapes them.
struct ProtocolException : std::runtime_error {
  explicit ProtocolException(ProtocolError e) : std::runtime_error(e.message), error(std::move(e)) {}
  ProtocolError error;
};

// Reads the fields of one JSON object and refuses, naming the field's path, anything that is
// missing, of the wrong type, negative or fractional where an integer is wanted, or out of
// range. Throws ProtocolException: use it inside parse_message(), which turns that into a
// ProtocolError.
class FieldReader {
 public:
  // `path` names the object in messages ("" for the body, "reports[2]" for an element).
  FieldReader(const nlohmann::json& object, std::string path);

  bool has(std::string_view key) const;  // present and not null
  const nlohmann::json& raw() const { return obj_; }
  const std::string& path() const { return path_; }

  std::string string(std::string_view key) const;
  // A string of at least one character.
  std::string name(std::string_view key) const;
  bool boolean(std::string_view key) const;
  std::uint64_t uint(std::string_view key,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
  std::uint32_t uint32(std::string_view key) const;
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max) const;
  // A finite number within [min, max].
  double number(std::string_view key, double min, double max) const;
  // The array at `key` (an error when it is not one).
  const nlohmann::json& array(std::string_view key) const;
  // The object at `key`.
  FieldReader object(std::string_view key) const;
  std::vector<std::string> strings(std::string_view key) const;
  std::map<std::string, std::string> string_map(std::string_view key) const;

  // The path of a field or element, for messages: "reports[2].rank".
  std::string field_path(std::string_view key) const;
  static std::string element_path(const std::string& array_path, std::size_t index);
  [[noreturn]] static void fail(const std::string& field, const std::string& what, int status = 400);

 private:
  const nlohmann::json& at(std::string_view key) const;  // present, else fail("missing")
  const nlohmann::json& obj_;
  std::string path_;
};

// An element of an array as an object, for nested readers ("reports[2]").
FieldReader element_reader(const nlohmann::json& array, std::size_t index, const std::string& array_path);

}  // namespace schedlab::emu
