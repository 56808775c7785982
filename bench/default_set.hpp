// The problems of `--default-set`: representative tensor operations, the large
// memory-bound ones (each tensor far larger than the CPU's L3) first, then a
// few cache-sized ones. Written in the command-line grammar so that each line
// is also a repro command.
#pragma once

#include <string>
#include <vector>

namespace bench {

std::vector<std::string> default_set_arguments();

}  // namespace bench
