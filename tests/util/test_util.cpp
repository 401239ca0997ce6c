// Utilities: spelling suggestions, strict number parsing with located errors, field
// splitting, and the results folder that appears only when committed.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/error.h"
#include "util/parse.h"
#include "util/staging_dir.h"
#include "util/suggest.h"

using namespace schedlab;
namespace fs = std::filesystem;

TEST_CASE("Util.Suggest.closest_match_and_messages") {
  const std::vector<std::string> parts = {"first-fit", "best-fit", "rack-pack", "spread"};
  CHECK(util::edit_distance("kitten", "sitting") == 3);
  CHECK(util::edit_distance("", "abc") == 3);
  CHECK(util::closest_match("bestfit", parts) == "best-fit");
  CHECK(util::closest_match("rackpak", parts) == "rack-pack");
  CHECK(util::closest_match("zzzzzz", parts).empty());
  CHECK(util::unknown_name_message("placement", "sprad", parts) ==
        "unknown placement 'sprad'; did you mean 'spread'? valid: first-fit, best-fit, rack-pack, spread");
  CHECK(util::unknown_name_message("placement", "qqqqqqq", parts) ==
        "unknown placement 'qqqqqqq' valid: first-fit, best-fit, rack-pack, spread");
  CHECK(util::join({"a", "b"}, ", ") == "a, b");
}

TEST_CASE("Util.Parse.strict_numbers_with_locations") {
  const std::string file = "t.csv";
  util::FieldContext at{file, 12, "gpus"};
  CHECK(util::parse_int(" 42 ", at) == 42);
  CHECK(util::parse_int("+7", at) == 7);
  // Whole-number floats, as pandas writes integer columns, are integers.
  CHECK(util::parse_int("3613033.0", at) == 3613033);
  CHECK(util::parse_int("-1.0", at) == -1);
  CHECK(util::parse_double("1e3", at) == 1000);
  struct Case {
    const char* text;
    const char* message;
  };
  const Case ints[] = {
      {"4.5", "t.csv:12: gpus: '4.5' is not a whole number"},
      {"four", "t.csv:12: gpus: 'four' is not a number"},
      {"", "t.csv:12: gpus: missing value"},
      {"12abc", "t.csv:12: gpus: '12abc' is not a number"},
  };
  for (const auto& c : ints) {
    CAPTURE(c.text);
    CHECK_THROWS_WITH_AS(util::parse_int(c.text, at), c.message, util::InputError);
  }
  CHECK_THROWS_WITH_AS(util::parse_double("nan", at), "t.csv:12: gpus: 'nan' is not a number", util::InputError);
  CHECK_THROWS_WITH_AS(util::parse_int_at_least("-2", 0, at), "t.csv:12: gpus: -2 is less than 0", util::InputError);
  CHECK_THROWS_WITH_AS(util::parse_double_at_least("-0.5", 0, at), "t.csv:12: gpus: -0.5 is less than 0",
                       util::InputError);
}

TEST_CASE("Util.Parse.split_fields_and_whitespace") {
  std::vector<std::string_view> out;
  util::split_fields("a,,b,", ',', out);
  CHECK(out == std::vector<std::string_view>{"a", "", "b", ""});
  util::split_whitespace("  1 \t 2   3 ", out);
  CHECK(out == std::vector<std::string_view>{"1", "2", "3"});
  CHECK(util::trim(" \tx \r") == "x");
}

TEST_CASE("Util.Error.located_messages") {
  CHECK(std::string(util::InputError("f.yaml", 3, "a.b", "bad").what()) == "f.yaml:3: a.b: bad");
  CHECK(std::string(util::InputError("f.yaml", 0, "", "gone").what()) == "f.yaml: gone");
  CHECK(std::string(util::InputError("", 0, "--tier", "bad").what()) == "--tier: bad");
}

TEST_CASE("Util.StagingDir.appears_only_when_committed") {
  const fs::path base = fs::temp_directory_path() / ("schedlab-staging-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base);
  const fs::path target = base / "results";
  {
    util::StagingDir d(target.string());
    std::ofstream(d.file("a.txt")) << "x";
    CHECK(fs::exists(d.path()));
    CHECK_FALSE(fs::exists(target));
  }  // not committed
  CHECK_FALSE(fs::exists(target));
  CHECK(fs::is_empty(base));
  {
    util::StagingDir d(target.string());
    std::ofstream(d.file("a.txt")) << "y";
    d.commit();
  }
  CHECK(fs::exists(target / "a.txt"));
  {
    // A second commit replaces the folder whole.
    util::StagingDir d(target.string() + "/");
    std::ofstream(d.file("b.txt")) << "z";
    d.commit();
  }
  CHECK_FALSE(fs::exists(target / "a.txt"));
  CHECK(fs::exists(target / "b.txt"));
  fs::remove_all(base);
}
