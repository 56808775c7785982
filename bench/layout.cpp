#include "layout.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace bench {
namespace {

const std::map<std::string, std::string> &named_tags() {
  static const std::map<std::string, std::string> names = {
      {"nc", "ab"},     {"ncw", "abc"},     {"nwc", "acb"},     {"nchw", "abcd"},
      {"nhwc", "acdb"}, {"chwn", "bcda"},   {"ncdhw", "abcde"}, {"ndhwc", "acdeb"},
  };
  return names;
}

bool is_permutation_tag(const std::string &t) {
  if (t.empty() || t.size() > 8) return false;
  std::string sorted = t;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<char>('a' + i)) return false;
  return true;
}

}  // namespace

bool is_known_tag(const std::string &tag) {
  return tag == "abx" || tag == "axb" || named_tags().count(tag) != 0 || is_permutation_tag(tag);
}

std::string letter_tag(const std::string &tag, size_t rank) {
  std::string letters;
  if (tag == "abx") {
    for (size_t i = 0; i < rank; ++i) letters += static_cast<char>('a' + i);
  } else if (tag == "axb") {
    letters = "a";
    for (size_t i = 2; i < rank; ++i) letters += static_cast<char>('a' + i);
    if (rank >= 2) letters += 'b';
  } else if (auto it = named_tags().find(tag); it != named_tags().end()) {
    letters = it->second;
  } else {
    letters = tag;
  }
  if (!is_permutation_tag(letters) || letters.size() != rank)
    throw std::invalid_argument("layout tag '" + tag + "' does not fit a tensor of rank " + std::to_string(rank));
  return letters;
}

Dims dense_strides(const Dims &dims, const std::string &tag) {
  std::string letters = letter_tag(tag, dims.size());
  Dims strides(dims.size(), 1);
  int64_t stride = 1;
  for (size_t k = letters.size(); k-- > 0;) {
    size_t dim = static_cast<size_t>(letters[k] - 'a');
    strides[dim] = stride;
    stride *= dims[dim];
  }
  return strides;
}

}  // namespace bench
