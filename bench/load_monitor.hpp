// How busy the rest of the machine was while we timed: CPU time of all
// processes (/proc/stat) minus this process's own (getrusage), per second of
// wall time, plus the hypervisor's steal time. On a shared 2-core VM this is
// what tells a clean measurement from a disturbed one.
#pragma once

namespace bench {

class LoadMonitor {
 public:
  LoadMonitor();  // starts the interval
  // Cores' worth of other processes' CPU time since construction (0 ... cores).
  double foreign_cores() const;
  // Cores' worth of steal time since construction.
  double steal_cores() const;

 private:
  double wall0_ = 0, busy0_ = 0, steal0_ = 0, self0_ = 0;
};

}  // namespace bench
