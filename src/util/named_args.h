// A part's named arguments (a queue order's `scheduler.args.las`, a trace format's
// `workload.args`, a perf model's `perf:` keys, a trace command's `--arg name=value`) and the
// one way to read them. Each value keeps the file and line it was written at, so the part that
// finds a value wrong reports `file:line: field: what` itself (yaml-cpp's Mark plays clang's
// SourceLocation); nothing turns values back into text or rewrites a message to add a line.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/time.h"

namespace schedlab::util {

// One value as written: a scalar's text, a list's items, or a map's entries in written order
// (a perf model's `model_mix`), each with its own line (0 when it has none: the command line,
// a --set value, a test).
struct ArgValue {
  enum class Shape { scalar, list, map, none };  // none: written empty (`key:` or `~`)
  Shape shape = Shape::scalar;
  std::string text;
  std::vector<ArgValue> items;
  std::vector<std::pair<std::string, ArgValue>> entries;
  long line = 0;

  ArgValue() = default;
  ArgValue(std::string scalar, long at_line = 0) : text(std::move(scalar)), line(at_line) {}  // NOLINT: a scalar reads as one
};

// Arguments by name, with the file they came from ("" for the command line).
struct NamedArgs {
  std::string file;
  long line = 0;  // the line of the map that holds them, for an error about no one value
  std::map<std::string, ArgValue> values;

  NamedArgs() = default;
  // Scalars without a place (the command line's --arg, tests).
  NamedArgs(std::initializer_list<std::pair<const std::string, std::string>> scalars);
  bool empty() const { return values.empty(); }
  const ArgValue* find(const std::string& name) const;
};

// How the owner of some arguments names them in messages. A field is `base.name` (`base name`
// when base is a command-line option such as "--arg"), then `suffix`:
// "scheduler.args.las.thresholds", "workload.args.gpus_per_host (swf)", "perf.overlap".
struct ArgsOwner {
  std::string base;    // "scheduler.args.las", "workload.args", "--arg", "perf"
  std::string noun;    // what an unknown name is called: "las arg", "swf trace argument"
  std::string suffix;  // after the name: " (swf)"; usually empty
  // When no name is known: "las takes no args" follows "unknown las arg 'x'; ".
  std::string takes_none;
};

// Reads one owner's arguments: constructing it refuses a name not in `known` (with the
// closest valid name); each getter returns the fallback when the name is absent and throws a
// located InputError (the value's file and line, the field, what is wrong) otherwise.
class ArgReader {
 public:
  ArgReader(const NamedArgs& args, ArgsOwner owner, std::vector<std::string> known);
  // Without checking names: for a reader of a few shared arguments (a trace reader's
  // rebase and sort) whose owner checks all its names with its own reader.
  ArgReader(const NamedArgs& args, ArgsOwner owner) : args_(&args), owner_(std::move(owner)) {}

  const ArgValue* find(const std::string& name) const { return args_->find(name); }
  // A single value's text.
  std::string text(const std::string& name, const std::string& fallback) const;
  // A value that must be given (an error at the arguments' own line when it is not).
  const ArgValue& required(const std::string& name) const;
  // A finite number in [lo, hi] (`lo_open`: excluding lo).
  double real(const std::string& name, double fallback, double lo, double hi, bool lo_open = false) const;
  // A whole number in [lo, hi].
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const;
  // A count in [1, hi]: "'0' is not a positive integer" below 1.
  std::uint64_t count(const std::string& name, std::uint64_t fallback, std::uint64_t hi) const;
  // A duration in seconds to microseconds, within 100 years; `positive` refuses 0.
  engine::Time seconds(const std::string& name, engine::Time fallback, bool positive = false) const;
  // true/false (also 1/0).
  bool flag(const std::string& name, bool fallback) const;
  // One of `valid`.
  std::string choice(const std::string& name, const std::string& fallback, const std::vector<std::string>& valid) const;
  // Durations in seconds, to microseconds: a list, one number, or a list written as text
  // ("[3600, 7200]", as a --set or a quoted value gives it).
  std::vector<engine::Time> seconds_list(const std::string& name, const std::vector<double>& fallback_s) const;

  std::string field(const std::string& name) const;
  const std::string& file() const { return args_->file; }
  // Throws InputError at `value`'s line naming the field of `name`.
  [[noreturn]] void fail(const std::string& name, const ArgValue& value, const std::string& what) const;
  [[noreturn]] void fail(const std::string& name, const std::string& what) const;

 private:
  const std::string& scalar(const std::string& name, const ArgValue& v) const;
  double number(const std::string& name, const ArgValue& v, const std::string& text) const;

  const NamedArgs* args_;
  ArgsOwner owner_;
};

}  // namespace schedlab::util
