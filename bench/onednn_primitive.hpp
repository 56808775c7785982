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
// (or another varied fill), never from one repeated byte pattern, so that a
// peer's speed cannot depend on pages that all hold the same bytes. (The
// first measurement of the switch looked like a 1.8x difference for
// oneDNN's reduction; three alternating rounds later showed it to be this
// guest's memory bandwidth changing between processes: 4.2 / 6.4 / 5.9 ms
// on the old pattern against 6.4 / 6.1 / 6.1 on this fill.)
dnnl::memory onednn_filled(const dnnl::memory::desc &d);

std::unique_ptr<PeerRun> onednn_primitive_peer(dnnl::primitive prim, std::unordered_map<int, dnnl::memory> args,
                                               std::string name);

}  // namespace bench

#endif  // FREEDNN_BENCH_ONEDNN
