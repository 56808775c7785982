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
// reordered into d's layout and type. Every peer's inputs come from here
// (or another varied fill), never from one repeated byte pattern: in this
// guest oneDNN's reduction (mean of 64x256x56x56 f32 over H, W, 2 threads)
// took 3.8 ms on a source filled with one 4-byte pattern against 7.0 ms on
// this fill, in the same bench process; a stand-alone read loop showed no
// such difference, so the cause is not known, but the old figure was not
// a peer's real speed.
dnnl::memory onednn_filled(const dnnl::memory::desc &d);

std::unique_ptr<PeerRun> onednn_primitive_peer(dnnl::primitive prim, std::unordered_map<int, dnnl::memory> args,
                                               std::string name);

}  // namespace bench

#endif  // FREEDNN_BENCH_ONEDNN
