// The libFuzzer wrapper of one target: built once per target with
// SCHEDLAB_FUZZ_ENTRY=fuzz_<name> (tests/fuzz/CMakeLists.txt). An exception other than the
// expected ones is printed and turned into an abort, which libFuzzer records as a crash.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <typeinfo>

#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    return schedlab::fuzz::SCHEDLAB_FUZZ_ENTRY(data, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz finding: uncaught %s: %s\n", typeid(e).name(), e.what());
  } catch (...) {
    std::fprintf(stderr, "fuzz finding: uncaught exception of unknown type\n");
  }
  std::abort();
}
