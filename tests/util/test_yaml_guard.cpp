// The one guarded YAML load (config/yaml_util.h parse_yaml): a key given twice, a second
// document, invalid UTF-8 and aliases beyond their budget are located errors, found at once
// (R25, R28, R30 of the robustness reproducers).
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "../support/input_errors.h"
#include "config/scenario.h"
#include "util/yaml_util.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::config;

namespace {

// Levels of ten aliases each: 10^levels scalars from a few hundred bytes (R25's shape).
std::string alias_bomb(int levels) {
  std::string text = "options:\n  l0: &l0 [a,a,a,a,a,a,a,a,a,a]\n";
  for (int i = 1; i <= levels; ++i) {
    text += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ",*l" : "*l") + std::to_string(i - 1);
    text += "]\n";
  }
  return text;
}

}  // namespace

TEST_CASE("Config.Yaml.duplicate_key_is_an_error_at_the_second") {
  const util::InputError e =
      input_error_of([] { util::parse_yaml("name: t\nseed: 1\nmetrics: {}\nseed: 2\n", "s.yaml"); });
  CHECK(e.file() == "s.yaml");
  CHECK(e.line() == 4);
  CHECK(e.field() == "seed");
  CHECK(says(e, "key 'seed' given twice in one map (first at line 2)"));

  // In a nested map and in a flow map, the path leads to it.
  const util::InputError nested = input_error_of([] { util::parse_yaml("a:\n  b:\n    c: 1\n    c: 2\n", "s.yaml"); });
  CHECK(nested.line() == 4);
  CHECK(nested.field() == "a.b.c");
  const util::InputError flow = input_error_of([] { util::parse_yaml("a: [{x: 1, y: 2, x: 3}]\n", "s.yaml"); });
  CHECK(flow.field() == "a[0].x");
  CHECK(says(flow, "first at line 1"));

  // Equal values under different maps are no duplicate.
  CHECK_NOTHROW(util::parse_yaml("a: {x: 1}\nb: {x: 1}\n", "s.yaml"));
}

TEST_CASE("Config.Yaml.second_document_is_an_error") {
  const util::InputError e = input_error_of([] { util::parse_yaml("a: 1\n---\nb: 2\n", "s.yaml"); });
  CHECK(e.line() == 2);
  CHECK(says(e, "a second YAML document"));
  CHECK(input_error_of([] { util::parse_yaml("a: 1\n--- b\n", "s.yaml"); }).line() == 2);
  // A leading `---`, an end marker, an empty text and comments alone are one document or none.
  CHECK(util::parse_yaml("---\na: 1\n", "s.yaml")["a"].Scalar() == "1");
  CHECK(util::parse_yaml("a: 1\n...\n", "s.yaml")["a"].Scalar() == "1");
  CHECK(util::parse_yaml("", "s.yaml").IsNull());
  CHECK(util::parse_yaml("# nothing\n", "s.yaml").IsNull());
}

TEST_CASE("Config.Yaml.second_document_without_a_marker_is_an_error") {
  // A file whose first document is a block map in the first column is read once; anything
  // else may hold a second document without a marker, and is refused at that document.
  struct Case {
    const char* text;
    long line;  // of the error; 0: one document
  };
  const Case cases[] = {
      {"a: 1\nb: 2\n", 0},
      {"a: 1\r\nb: 2\r\n", 0},
      {"a:\n  - 1\n  - 2\n", 0},
      {"# c\n\na: 1\n", 0},
      {"{a: 1}\n{b: 2}\n", 2},   // flow maps
      {"[1]\n[2]\n", 2},         // flow lists
      {"\"abc\"\n\"def\"\n", 2}, // scalars
      {"  a: 1\nb: 2\n", 2},     // an indented map ends where a key starts further left
      {"a: 1\n...\nb: 2\n", 3},  // after an end marker
      {"a: 1\r\n---\r\nb: 2\r\n", 2},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    if (c.line == 0) {
      CHECK_NOTHROW(util::parse_yaml(c.text, "s.yaml"));
    } else {
      const util::InputError e = input_error_of([&] { util::parse_yaml(c.text, "s.yaml"); });
      CHECK(e.line() == c.line);
      CHECK(says(e, "a second YAML document"));
    }
  }
}

TEST_CASE("Config.Yaml.invalid_utf8_is_an_error_at_its_line") {
  const util::InputError e = input_error_of([] {
    util::parse_yaml(
        "seed: 1\nname: a\xff\xfe"
        "b\n",
        "s.yaml");
  });
  CHECK(e.line() == 2);
  CHECK(e.field() == "name");
  CHECK(says(e, "not valid UTF-8: byte 0xff at offset 1"));
  CHECK(says(e, "'a\\xff\\xfeb'"));  // quoted made printable
  // Keys are text too; valid multi-byte text and control characters are accepted here (they
  // are escaped where they are printed).
  CHECK(input_error_of([] { util::parse_yaml("k\xc3: 1\n", "s.yaml"); }).line() == 1);
  CHECK_NOTHROW(util::parse_yaml("name: \"gr\xc3\xbc\xc3\x9f \xe6\x97\xa5\\e[31m\"\n", "s.yaml"));
}

TEST_CASE("Config.Yaml.alias_bomb_is_refused_at_once") {
  const auto start = std::chrono::steady_clock::now();
  const util::InputError e = input_error_of([] { util::parse_yaml(alias_bomb(9), "bomb.yaml"); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 1.0);
  CHECK(says(e, "YAML aliases stand for more than 1000000 nodes"));
  CHECK(e.field().starts_with("options.l"));
  CHECK(e.line() >= 2);

  // A few shared settings are fine, and read as written.
  const YAML::Node ok = util::parse_yaml(alias_bomb(3), "ok.yaml");
  CHECK(ok["options"]["l3"][9][9][9][9].Scalar() == "a");
  CHECK_NOTHROW(util::parse_yaml("base: &b {gpus: 8, racks: 2}\nx: *b\ny: *b\n", "ok.yaml"));
}

TEST_CASE("Config.Yaml.alias_cycles_and_depth_through_aliases") {
  const util::InputError cycle = input_error_of([] { util::parse_yaml("a: 1\nb: &x [1, *x]\n", "s.yaml"); });
  CHECK(cycle.line() == 2);
  CHECK(says(cycle, "an alias refers to the list or map that contains it"));
  const util::InputError map_cycle = input_error_of([] { util::parse_yaml("a: &m {self: *m}\n", "s.yaml"); });
  CHECK(map_cycle.field() == "a.self");

  // Each level is 300 lists deep as written (the parser allows 499); aliases stack them.
  const std::string deep = std::string(300, '[') + "1" + std::string(300, ']');
  const std::string text = "a: &a " + deep + "\nb: &b " + std::string(300, '[') + "*a" + std::string(300, ']') + "\n";
  const util::InputError e = input_error_of([&] { util::parse_yaml(text, "s.yaml"); });
  CHECK(e.line() == 2);
  CHECK(says(e, "nested too deeply once aliases are expanded (more than 499 levels"));
}

TEST_CASE("Config.Yaml.set_values_go_through_the_same_load") {
  YAML::Node root = util::parse_yaml("name: t\n", "s.yaml");
  const util::InputError dup = input_error_of([&] { apply_override(root, "scheduler={a: 1, a: 2}"); });
  CHECK(dup.file() == "--set");
  CHECK(says(dup, "key 'a' given twice"));
  const util::InputError utf8 = input_error_of([&] { apply_override(root, "name=a\xff"); });
  CHECK(says(utf8, "not valid UTF-8"));
}
