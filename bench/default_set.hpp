// The problems of `--default-set`, written in the command-line grammar so that
// each line is also a repro command. The tensor operations' lines live in
// default_set.cpp; every other op family adds its own lines next to its code:
//
//   BENCH_DEFAULT_PROBLEMS(pooling, 20, {
//       "--reset --name=pool.max --op=pool ...",
//   });
//
// Groups run in increasing `order`, lines in the order given.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace bench {

std::vector<std::string> default_set_arguments();

// Registers a group of default problems at program start.
struct DefaultProblems {
  DefaultProblems(int order, std::initializer_list<const char *> lines);
};

#define BENCH_DEFAULT_PROBLEMS(name, order, ...) \
  namespace {                                   \
  const ::bench::DefaultProblems bench_default_##name(order, __VA_ARGS__); \
  }

}  // namespace bench
