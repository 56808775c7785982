// Memory layouts of bench tensors, written as tags in the spirit of oneDNN:
// a tag lists the dimensions from the outermost to the innermost in memory,
// letter `a` being dimension 0. `acdb` on a 4-d tensor is NHWC.
// Accepted: an explicit letter tag (its length must equal the rank), the
// rank-free `abx` (dense, dims in order) and `axb` (dimension 1 innermost,
// "channels last"), and the names nc, ncw, nwc, nchw, nhwc, chwn, ncdhw, ndhwc.
#pragma once

#include <string>

#include "problem.hpp"

namespace bench {

// Throws std::invalid_argument when the tag is unknown or does not fit the rank.
Dims dense_strides(const Dims &dims, const std::string &tag);

// True when `tag` is accepted for some rank (for early checks of --stag/--dtag).
bool is_known_tag(const std::string &tag);

// The letter form of a tag for a rank ("nhwc", 4 -> "acdb").
std::string letter_tag(const std::string &tag, size_t rank);

}  // namespace bench
