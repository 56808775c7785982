// Float64 references of the spatial transformer (cuDNN's conventions:
// normalised output coordinates -1 + 2i/(n-1), input position
// (g + 1)(n - 1)/2, bilinear weights, zero outside the input), written
// independently of the library, over plain vectors in logical order.
#pragma once

#include <cstdint>
#include <vector>

namespace fdnn_test {

struct StShape {
  int64_t n, c, h, w;  // output (the descriptor's dims)
  int64_t hi, wi;      // input
};

// theta [n,2,3] -> grid [n,h,w,2].
std::vector<double> st_grid_forward(const StShape &s, const std::vector<double> &theta);
// dgrid [n,h,w,2] -> dtheta [n,2,3].
std::vector<double> st_grid_backward(const StShape &s, const std::vector<double> &dgrid);
// x [n,c,hi,wi], grid -> y [n,c,h,w] (unblended).
std::vector<double> st_sample(const StShape &s, const std::vector<double> &x, const std::vector<double> &grid);
// Gradients of sum(dy * y) for x (dx [n,c,hi,wi]) and grid (dgrid [n,h,w,2]), unblended.
void st_sample_backward(const StShape &s, const std::vector<double> &x, const std::vector<double> &grid,
                        const std::vector<double> &dy, std::vector<double> &dx, std::vector<double> &dgrid);

}  // namespace fdnn_test
