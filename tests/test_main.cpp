// Entry point of the unit-test binary; every tests/<part>/*.cpp registers its cases with doctest.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
