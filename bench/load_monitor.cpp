#include "load_monitor.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace bench {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Busy and steal seconds of all CPUs from the first line of /proc/stat.
void read_proc_stat(double *busy, double *steal) {
  *busy = *steal = 0;
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line) || line.rfind("cpu ", 0) != 0) return;
  std::istringstream f(line.substr(4));
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, st = 0;
  f >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> st;
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  *busy = static_cast<double>(user + nice + system + irq + softirq) / hz;
  *steal = static_cast<double>(st) / hz;
}

double self_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

LoadMonitor::LoadMonitor() {
  read_proc_stat(&busy0_, &steal0_);
  self0_ = self_seconds();
  wall0_ = now_seconds();
}

double LoadMonitor::foreign_cores() const {
  double busy, steal;
  read_proc_stat(&busy, &steal);
  double wall = now_seconds() - wall0_;
  if (wall <= 0) return 0;
  // /proc/stat ticks are coarse (10 ms): clamp the small negative noise.
  return std::max(0.0, ((busy - busy0_) - (self_seconds() - self0_)) / wall);
}

double LoadMonitor::steal_cores() const {
  double busy, steal;
  read_proc_stat(&busy, &steal);
  double wall = now_seconds() - wall0_;
  return wall > 0 ? std::max(0.0, (steal - steal0_) / wall) : 0;
}

}  // namespace bench
