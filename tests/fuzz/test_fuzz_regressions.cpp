// Replays every file under tests/fuzz/regressions/<target>/ through the fuzz entry point of
// <target> (the same function libFuzzer calls): each once crashed, hung, broke an invariant or
// escaped as an unexpected exception. Bad input answered with InputError passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "fuzz/fuzz_targets.h"

namespace fs = std::filesystem;

namespace {

fs::path regressions_dir() { return fs::path(SCHEDLAB_SOURCE_DIR) / "tests" / "fuzz" / "regressions"; }

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("Fuzz.Regressions.EveryFolderNamesATarget") {
  for (const auto& dir : sorted_entries(regressions_dir())) {
    CAPTURE(dir.string());
    if (!fs::is_directory(dir)) continue;  // README.md
    CHECK(schedlab::fuzz::find_target(dir.filename().string()) != nullptr);
  }
}

TEST_CASE("Fuzz.Regressions.Replay") {
  int replayed = 0;
  for (const auto& target : schedlab::fuzz::targets()) {
    fs::path dir = regressions_dir() / std::string(target.name);
    if (!fs::is_directory(dir)) continue;
    for (const auto& file : sorted_entries(dir)) {
      CAPTURE(file.string());
      std::ifstream in(file, std::ios::binary);
      REQUIRE(in.is_open());
      std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      CHECK_NOTHROW(target.entry(bytes.data(), bytes.size()));
      ++replayed;
    }
  }
  MESSAGE(replayed << " fuzz regression inputs replayed");
}

TEST_CASE("Fuzz.Sandbox.SeedPathsResolve") {
  // The sandbox mirrors the repository so that the seeds' relative paths resolve; if it did not,
  // every fuzz input would end as a cheap "file not found" and fuzzing would test nothing.
  for (std::string seed : {"tests/fixtures/scenarios/tiny.yaml", "scenarios/quickstart.yaml",
                           "tests/e2e/fixtures/base.yaml"}) {
    CAPTURE(seed);
    std::ifstream in(fs::path(SCHEDLAB_SOURCE_DIR) / seed, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string path = schedlab::fuzz::write_input("tests/fixtures/scenarios/fuzz-input.yaml",
                                                   reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    CHECK_NOTHROW(schedlab::config::load_scenario(path));
  }
}
