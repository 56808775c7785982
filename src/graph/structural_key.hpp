// Raw-byte pieces of Graph::structural_key() (graph.cpp). The legacy calls
// build that key on every call to find their cached plan; formatting the
// numbers of an op through an ostream (describe) cost more than the whole
// small operation it was keyed for (a 32-element batch norm on the CPU: 7-10
// us a call, over half of it in the key). The ops the legacy calls build
// most often (convolution, normalization, pointwise) append their fields as
// bytes instead, after a tag that no describe() text contains.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

namespace fdnn::graph {

inline void key_put(std::string &key, int64_t v) { key.append(reinterpret_cast<const char *>(&v), sizeof v); }

// The values lie contiguous in the list: one append for all of them.
inline void key_put(std::string &key, std::initializer_list<int64_t> values) {
  key.append(reinterpret_cast<const char *>(values.begin()), values.size() * sizeof(int64_t));
}

}  // namespace fdnn::graph
