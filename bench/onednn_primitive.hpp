// What the oneDNN peers share: the CPU engine, operands filled with small
// varied values, and a PeerRun that executes one primitive with its
// arguments (made once, outside the timing).
#pragma once

#ifdef FREEDNN_BENCH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <string>
#include <unordered_map>

#include "op.hpp"

namespace bench {

dnnl::engine &onednn_cpu_engine();

// Small varied values (xorshift in [-1, 1)), written as plain f32 and
// reordered into d's layout and type.
dnnl::memory onednn_filled(const dnnl::memory::desc &d);

std::unique_ptr<PeerRun> onednn_primitive_peer(dnnl::primitive prim, std::unordered_map<int, dnnl::memory> args,
                                               std::string name);

}  // namespace bench

#endif  // FREEDNN_BENCH_ONEDNN
