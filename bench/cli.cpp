#include "cli.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "dtype.hpp"
#include "layout.hpp"
#include "op.hpp"

namespace bench {
namespace {

[[noreturn]] void bad(const std::string &token, const std::string &why) {
  throw std::invalid_argument("bad argument '" + token + "': " + why);
}

double to_double(const std::string &token, const std::string &v) {
  try {
    size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size()) return d;
  } catch (const std::exception &) {
  }
  bad(token, "expected a number, got '" + v + "'");
}

int64_t to_int(const std::string &token, const std::string &v, int64_t min) {
  try {
    size_t used = 0;
    long long n = std::stoll(v, &used);
    if (used == v.size() && n >= min) return n;
  } catch (const std::exception &) {
  }
  bad(token, "expected an integer >= " + std::to_string(min) + ", got '" + v + "'");
}

bool to_on_off(const std::string &token, const std::string &v) {
  if (v == "on" || v == "true" || v == "1") return true;
  if (v == "off" || v == "false" || v == "0") return false;
  bad(token, "expected on or off");
}

std::string checked_dtype(const std::string &token, const std::string &v) {
  if (!is_known_dtype(v)) bad(token, std::string("unknown data type (expected one of ") + dtype_names() + ")");
  return v;
}

std::string checked_tag(const std::string &token, const std::string &v) {
  if (!is_known_tag(v)) bad(token, "unknown layout tag (see --help: abx, axb, nchw, nhwc, acdb, ...)");
  return v;
}

std::vector<std::string> read_batch_file(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot open batch file '" + path + "'");
  std::vector<std::string> tokens;
  std::string line;
  while (std::getline(in, line)) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string w;
    while (words >> w) tokens.push_back(w);
  }
  return tokens;
}

struct Parser {
  Config cfg;
  Knobs knobs;
  std::string name;
  int depth = 0;

  void run(const std::vector<std::string> &args) {
    for (const std::string &token : args) one(token);
  }

  void one(const std::string &token) {
    if (token.rfind("--", 0) != 0) {
      add_problem(token);
      return;
    }
    std::string key = token, value;
    bool has_value = false;
    if (auto eq = token.find('='); eq != std::string::npos) {
      key = token.substr(0, eq);
      value = token.substr(eq + 1);
      has_value = true;
    }
    auto need = [&] {
      if (!has_value || value.empty()) bad(token, "needs a value (" + key + "=...)");
      return value;
    };

    // Settings of the run.
    if (key == "--help" || key == "-h") cfg.help = true;
    else if (key == "--default-set") cfg.default_set = true;
    else if (key == "--mode") {
      std::string m = need();
      if (m != "perf" && m != "check" && m != "bandwidth" && m != "list")
        bad(token, "expected perf, check, bandwidth or list");
      cfg.mode = m;
    } else if (key == "--threads") cfg.threads = static_cast<int>(to_int(token, need(), 1));
    else if (key == "--engine") cfg.engine = need();
    else if (key == "--device") {
      std::string d = need();
      if (d != "cpu" && d != "auto") bad(token, "expected cpu or auto");
      cfg.device = d == "cpu" ? "cpu" : "";
    } else if (key == "--reps") cfg.reps = static_cast<int>(to_int(token, need(), 1));
    else if (key == "--min-ms") cfg.min_sample_ms = to_double(token, need());
    else if (key == "--max-load") cfg.max_load = to_double(token, need());
    else if (key == "--paired-copy") cfg.paired_copy = to_on_off(token, need());
    else if (key == "--paired-peer") cfg.paired_peer = to_on_off(token, need());
    else if (key == "--onednn") cfg.onednn = to_on_off(token, need());
    else if (key == "--check") cfg.check = to_on_off(token, need());
    else if (key == "--seed") cfg.seed = static_cast<uint64_t>(to_int(token, need(), 0));
    else if (key == "--internal-check") cfg.internal_check = true;
    else if (key == "--batch") {
      if (++depth > 8) bad(token, "batch files nest too deeply");
      run(read_batch_file(need()));
      --depth;
    }
    // Problem knobs.
    else if (key == "--reset") {
      knobs = Knobs{};
      name.clear();
    } else if (key == "--op") {
      std::string op = need();
      if (!OpRegistry::instance().find(op)) bad(token, "unknown op (see --help for the list)");
      knobs.op = op;
      knobs.alg.clear();  // algorithms belong to an op
    } else if (key == "--alg") knobs.alg = need();
    else if (key == "--dt") knobs.dt = checked_dtype(token, need());
    else if (key == "--sdt") knobs.sdt = checked_dtype(token, need());
    else if (key == "--ddt") knobs.ddt = checked_dtype(token, need());
    else if (key == "--cdt") knobs.cdt = checked_dtype(token, need());
    else if (key == "--stag" || key == "--src") knobs.stag = checked_tag(token, need());
    else if (key == "--dtag" || key == "--dst") knobs.dtag = checked_tag(token, need());
    else if (key == "--tag") knobs.stag = knobs.dtag = checked_tag(token, need());
    else if (key == "--alpha") knobs.alpha = to_double(token, need());
    else if (key == "--alpha2") knobs.alpha2 = to_double(token, need());
    else if (key == "--beta") knobs.beta = to_double(token, need());
    else if (key == "--value") knobs.value = to_double(token, need());
    else if (key == "--indices") {
      std::string v = has_value ? value : "32";
      if (v != "none" && v != "8" && v != "16" && v != "32" && v != "64")
        bad(token, "expected --indices (32-bit), --indices=8|16|32|64 or --indices=none");
      knobs.indices = v;
    } else if (key == "--nan") {
      std::string v = need();
      if (v != "prop" && v != "noprop") bad(token, "expected prop or noprop");
      knobs.nan = v;
    } else if (key == "--dir") {
      std::string v = need();
      if (v != "FWD_D" && v != "BWD_D" && v != "BWD_W") bad(token, "expected FWD_D, BWD_D or BWD_W");
      knobs.dir = v;
    } else if (key == "--name") name = need();
    else bad(token, "unknown option (see --help)");
  }

  void add_problem(const std::string &token) {
    Problem p;
    p.knobs = knobs;
    p.name = name;
    try {
      if (std::isalpha(static_cast<unsigned char>(token[0]))) p.descriptor = token;
      else p.shapes = parse_shapes(token);
      OpRegistry::instance().find(knobs.op)->validate(p);
    } catch (const std::invalid_argument &e) {
      bad(token, std::string(e.what()) + " (op " + knobs.op + ")");
    }
    cfg.problems.push_back(std::move(p));
  }
};

}  // namespace

std::vector<Dims> parse_shapes(const std::string &token) {
  std::vector<Dims> shapes;
  std::istringstream parts(token);
  std::string part;
  while (std::getline(parts, part, ':')) {
    Dims d;
    std::istringstream nums(part);
    std::string n;
    while (std::getline(nums, n, 'x')) {
      if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("a shape is sizes joined by 'x', shapes joined by ':' (e.g. 8x64x56x56:1x64x1x1)");
      d.push_back(std::stoll(n));
      if (d.back() < 1) throw std::invalid_argument("sizes must be >= 1");
    }
    if (d.empty()) throw std::invalid_argument("empty shape");
    shapes.push_back(d);
  }
  if (shapes.empty()) throw std::invalid_argument("empty shape");
  return shapes;
}

Config parse_command_line(const std::vector<std::string> &args) {
  Parser parser;
  parser.run(args);
  return parser.cfg;
}

void print_help() {
  std::printf(
      "freednn-bench: benchdnn-style driver for FreeDNN (the cuDNN API).\n"
      "\n"
      "usage: freednn-bench [SETTINGS] [KNOBS] SHAPES [[KNOBS] SHAPES ...]\n"
      "       freednn-bench --default-set [SETTINGS]\n"
      "       freednn-bench --mode=bandwidth [--threads=N]\n"
      "\n"
      "Arguments are read left to right. A knob changes the state for every later\n"
      "problem until it is changed again or --reset; each SHAPES token adds one\n"
      "problem with the knobs in force. SHAPES are sizes joined by 'x', several\n"
      "tensors joined by ':' (their meaning depends on the op, see below).\n"
      "\n"
      "Each problem is checked first, in a child process run with FREEDNN_VERBOSE=1\n"
      "(so the engine the library picked is known): random inputs, one call, output\n"
      "compared with the float64 reference of tests/common. It is then timed in this\n"
      "process: warm-up, then --reps samples of repeated calls lasting >= --min-ms\n"
      "each; the median sample gives time per call and GB/s = (bytes read + bytes\n"
      "written) / time (an output that beta = 0 does not read is not counted).\n"
      "The copy bandwidth of the machine is measured in the same run (threads as\n"
      "below) and each GB/s is also printed as a fraction of it; where oneDNN has\n"
      "exactly the same semantics it runs the same problem and the ratio is shown.\n"
      "\n"
      "Settings:\n"
      "  --mode=perf|check|bandwidth|list  perf (default): check + time; check: only\n"
      "                        correctness; bandwidth: only the machine's copy\n"
      "                        bandwidth; list: print the parsed problems\n"
      "  --default-set         the representative tensor-op set (large memory-bound\n"
      "                        problems included), then a summary table\n"
      "  --threads=N           CPU threads for FreeDNN (FREEDNN_NUM_THREADS), oneDNN\n"
      "                        and the copy measurement (default: all cores)\n"
      "  --device=cpu|auto     cpu forces FREEDNN_DEVICE=cpu (default: the library's choice)\n"
      "  --engine=PREFIX       only FreeDNN engines whose name starts with PREFIX\n"
      "  --reps=N              timed samples per problem (default 10; 3 when one call\n"
      "                        takes longer than 10 x --min-ms)\n"
      "  --min-ms=T            minimum length of one sample in ms (default 20)\n"
      "  --max-load=C          re-time a problem (up to 3 times, the quietest kept)\n"
      "                        while other processes used more than C cores; the\n"
      "                        load is printed either way (default: no re-timing)\n"
      "  --paired-copy=on|off  CPU, problems without FLOPs: also time --reps rounds of\n"
      "                        ours and a memcpy of the same bytes in turn, and print\n"
      "                        the median of the rounds' ratios (default off)\n"
      "  --paired-peer=on|off  CPU: also time --reps rounds of ours and the oneDNN\n"
      "                        peer in turn, both kept in memory, and print the\n"
      "                        median of the rounds' ours/oneDNN (default off)\n"
      "  --check=on|off        perf mode: check correctness first (default on)\n"
      "  --onednn=on|off       run the oneDNN peer where it fits (default on)\n"
      "  --seed=N              random data seed (default 1)\n"
      "  --batch=FILE          read more arguments from FILE ('#' comments)\n"
      "\n"
      "Problem knobs (defaults in brackets):\n"
      "  --op=NAME             the operation [transform]\n"
      "  --alg=NAME            the op's algorithm (see below)\n"
      "  --dt=T                data type of all tensors [f32]: %s\n"
      "  --sdt=T, --ddt=T      source / destination type, overriding --dt\n"
      "  --cdt=T               compute type of optensor and reduce [f32; f64 for f64 data]\n"
      "  --stag=TAG, --dtag=TAG  source / destination layout [abx]; --src, --dst are\n"
      "                        aliases, --tag sets both. TAG lists dimensions from the\n"
      "                        outermost to the innermost in memory, `a` = dimension 0:\n"
      "                        abcd = nchw, acdb = nhwc; abx = dense in order, axb =\n"
      "                        dimension 1 innermost (any rank); also nc, ncw, nwc,\n"
      "                        nchw, nhwc, chwn, ncdhw, ndhwc\n"
      "  --alpha=F, --alpha2=F, --beta=F  scaling factors [1, 1, op default]\n"
      "  --value=F             value written by set [0.5]\n"
      "  --indices[=BITS]      reduce: also return flattened indices (8|16|32|64) [none]\n"
      "  --nan=prop|noprop     NaN propagation of optensor and reduce [noprop]\n"
      "  --dir=FWD_D|BWD_D|BWD_W  conv: forward, backward data, backward filter [FWD_D]\n"
      "  --name=LABEL          label shown in the summary table\n"
      "  --reset               restore all knob defaults\n"
      "\n"
      "Ops:\n",
      dtype_names());
  for (const OpFamily *f : OpRegistry::instance().all()) std::printf("%s", f->help());
  std::printf(
      "\n"
      "Examples:\n"
      "  freednn-bench --op=transform --dt=f32 --stag=nchw --dtag=nhwc 64x256x56x56\n"
      "  freednn-bench --op=add --dt=f16 32x64x56x56:1x64x1x1\n"
      "  freednn-bench --op=optensor --alg=mul 32x64x56x56:32x64x56x56\n"
      "  freednn-bench --op=reduce --alg=max --indices 256x1024:256x1\n"
      "  freednn-bench --op=set --value=0 64x256x56x56 --op=scale --alpha=0.5 64x256x56x56\n"
      "\n"
      "Exit status: 0 when every problem passed, 1 when one failed, was not\n"
      "supported (NOT_SUPPORTED counts as a failure, as UNIMPLEMENTED does in\n"
      "benchdnn) or crashed, 2 on a bad command line.\n");
}

}  // namespace bench
