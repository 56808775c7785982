// The backend (graph) API's OPERATION_PAGED_CACHE_LOAD (paged K/V caches of
// the flash-attention patterns): the op alone over random shapes, strides,
// types, page tables and sequence lengths, y plain [B,H,S,D] or transposed
// [B,H,D,S] (the K^T form), checked element by element against index
// arithmetic written here; a paged load feeding a matmul (Q x K^T, P x V)
// checked against a float64 product; and the finalize rules probed against
// cuDNN 9.19 on the host (all BAD_PARAM).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class BackendPagedCache : public BackendGraphTest {
 public:
  using BackendGraphTest::run;
};

std::unique_ptr<Desc> paged_op(Desc *container, Desc *y, Desc *seq, Desc *table) {
  auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR);
  const auto set = [&](cudnnBackendAttributeName_t n, Desc *d) {
    if (d) EXPECT_EQ(op->set1(n, CUDNN_TYPE_BACKEND_DESCRIPTOR, d->d), CUDNN_STATUS_SUCCESS);
  };
  set(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, container);
  set(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, y);
  set(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC, seq);
  set(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC, table);
  return op;
}

// A random problem: the container's pages, a page table that scatters each
// sequence's blocks over them (entries past a sequence's end may be -1 or
// out of range, as serving systems leave them), lengths up to S + 2.
struct Problem {
  int64_t batch, heads, seq, head_dim, block, pages, blocks;
  bool transposed;
  HostTensor container, table, seq_len, y;
};

// Strides for y: [B,H,S,D] with stride[2] != 1, or [B,H,D,S] with
// stride[2] == 1 (the only thing cuDNN looks at to tell them apart).
std::vector<int64_t> y_strides(Rng &rng, const std::vector<int64_t> &dims, bool transposed) {
  if (transposed) {
    std::vector<int64_t> s(4);
    s[2] = 1;
    s[3] = dims[2] + rng.integer(0, 2);
    s[1] = s[3] * dims[3] + rng.integer(0, 3);
    s[0] = s[1] * dims[1] + rng.integer(0, 3);
    if (rng.coin(0.3)) std::swap(s[0], s[1]), s[0] = s[1] * dims[0] + 1;  // heads outermost
    return s;
  }
  for (int tries = 0; tries < 20; ++tries) {
    std::vector<int64_t> s = random_strides(rng, dims);
    if (s[2] != 1) return s;
  }
  return packed(dims);  // dims[3] >= 2: stride[2] = D
}

Problem make_problem(Rng &rng, cudnnDataType_t type, cudnnDataType_t seq_type, bool transposed) {
  Problem p;
  p.batch = rng.integer(1, 3);
  p.heads = rng.integer(1, 3);
  p.head_dim = rng.integer(2, 12);
  p.block = int64_t{1} << rng.integer(0, 4);
  p.seq = rng.integer(1, 40);
  p.pages = (p.seq + p.block - 1) / p.block;
  p.blocks = p.batch * p.pages / 2 + rng.integer(1, 4);
  p.transposed = transposed;
  const std::vector<int64_t> cd{p.blocks, p.heads, p.block, p.head_dim};
  p.container = make_tensor(type, cd, rng.coin(0.5) ? packed(cd) : random_strides(rng, cd));
  fill_random(p.container, rng, -8, 8);
  const std::vector<int64_t> td{p.batch, 1, p.pages, 1}, sd{p.batch, 1, 1, 1};
  p.table = make_tensor(CUDNN_DATA_INT32, td, rng.coin(0.5) ? packed(td) : random_strides(rng, td));
  p.seq_len = make_tensor(seq_type, sd, rng.coin(0.5) ? packed(sd) : random_strides(rng, sd));
  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t len = rng.coin(0.3) ? p.seq : rng.integer(0, p.seq + 2);
    p.seq_len.set({b, 0, 0, 0}, static_cast<double>(len));
    for (int64_t k = 0; k < p.pages; ++k) {
      int64_t page = rng.integer(0, p.blocks - 1);
      if (k * p.block >= len && rng.coin(0.5)) page = rng.coin(0.5) ? -1 : p.blocks + rng.integer(0, 5);
      else if (rng.coin(0.05)) page = -1;  // an unassigned page inside the sequence: zeros too
      p.table.set({b, 0, k, 0}, static_cast<double>(page));
    }
  }
  const std::vector<int64_t> yd = transposed ? std::vector<int64_t>{p.batch, p.heads, p.head_dim, p.seq}
                                             : std::vector<int64_t>{p.batch, p.heads, p.seq, p.head_dim};
  p.y = make_tensor(type, yd, y_strides(rng, yd, transposed));
  return p;
}

// The value the load must give at (b, h, s, d), from the host tensors.
double expected_element(const Problem &p, int64_t b, int64_t h, int64_t s, int64_t d) {
  const int64_t len = static_cast<int64_t>(p.seq_len.get({b, 0, 0, 0}));
  if (s >= len) return 0.0;
  const int64_t page = static_cast<int64_t>(p.table.get({b, 0, s / p.block, 0}));
  if (page < 0 || page >= p.blocks) return 0.0;
  return p.container.get({page, h, s % p.block, d});
}

struct Descs {
  std::unique_ptr<Desc> container, table, seq_len, y;
};

Descs descs_of(const Problem &p, bool y_virtual = false) {
  Descs d;
  d.container = tensor_desc(1, p.container.dtype, p.container.dims, p.container.strides);
  d.table = tensor_desc(2, CUDNN_DATA_INT32, p.table.dims, p.table.strides);
  d.seq_len = tensor_desc(3, p.seq_len.dtype, p.seq_len.dims, p.seq_len.strides);
  d.y = tensor_desc(4, p.y.dtype, p.y.dims, p.y.strides, y_virtual);
  return d;
}

TEST_F(BackendPagedCache, LoadRandom) {
  Rng rng(test_seed(71));
  const std::vector<cudnnDataType_t> types = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                              CUDNN_DATA_DOUBLE, CUDNN_DATA_INT8};
  for (int iter = 0; iter < 16; ++iter) {
    const cudnnDataType_t type = types[static_cast<size_t>(iter) % types.size()];
    const cudnnDataType_t seq_type = rng.coin(0.5) ? CUDNN_DATA_INT32 : CUDNN_DATA_INT64;
    const bool transposed = rng.coin(0.4);
    Problem p = make_problem(rng, type, seq_type, transposed);
    SCOPED_TRACE(testing::Message() << "iter " << iter << " " << type_name(type) << " B" << p.batch << " H" << p.heads
                                    << " S" << p.seq << " D" << p.head_dim << " block" << p.block << " blocks"
                                    << p.blocks << (transposed ? " transposed" : ""));
    poison(p.y);
    const HostTensor y_before = p.y;
    Descs d = descs_of(p);
    auto op = paged_op(d.container.get(), d.y.get(), d.seq_len.get(), d.table.get());
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    Buffer cb = upload(p.container), tb = upload(p.table), sb = upload(p.seq_len), yb = upload(p.y);
    ASSERT_EQ(run({op.get()}, {1, 2, 3, 4}, {cb.get(), tb.get(), sb.get(), yb.get()}), CUDNN_STATUS_SUCCESS);
    download(yb, p.y);
    std::vector<Expect> want;
    for_each_index(p.y.dims, [&](const std::vector<int64_t> &i) {
      const int64_t s = transposed ? i[3] : i[2], dd = transposed ? i[2] : i[3];
      want.push_back({expected_element(p, i[0], i[1], s, dd), 0.0});
    });
    EXPECT_TRUE(matches(p.y, want));
    EXPECT_TRUE(gaps_untouched(p.y, y_before));
  }
}

// ---- paged load -> matmul ------------------------------------------------------

// K^T (transposed y, [B,H,D,S]): C = Q [B,H,M,D] x K^T -> [B,H,M,S] (the
// attention scores). V (plain y, [B,H,S,D]): C = P [B,H,M,S] x V -> [B,H,M,D].
// The loaded tensor is virtual: it lives only between the two operations.
void check_load_matmul(BackendPagedCache &t, Rng &rng, bool key) {
  Problem p = make_problem(rng, CUDNN_DATA_FLOAT, CUDNN_DATA_INT32, key);
  const int64_t m = rng.integer(1, 9);
  const int64_t inner = key ? p.head_dim : p.seq, cols = key ? p.seq : p.head_dim;
  SCOPED_TRACE(testing::Message() << (key ? "Q x K^T" : "P x V") << " B" << p.batch << " H" << p.heads << " S"
                                  << p.seq << " D" << p.head_dim << " block" << p.block << " M" << m);
  const std::vector<int64_t> ad{p.batch, p.heads, m, inner}, cd{p.batch, p.heads, m, cols};
  HostTensor a = make_tensor(CUDNN_DATA_FLOAT, ad, packed(ad)), c = make_tensor(CUDNN_DATA_FLOAT, cd, packed(cd));
  fill_random(a, rng, -2, 2);
  poison(c);
  Descs d = descs_of(p, true);
  auto ad_desc = tensor_desc(5, CUDNN_DATA_FLOAT, ad, a.strides), cd_desc = tensor_desc(6, CUDNN_DATA_FLOAT, cd, c.strides);
  auto load = paged_op(d.container.get(), d.y.get(), d.seq_len.get(), d.table.get());
  ASSERT_EQ(load->finalize(), CUDNN_STATUS_SUCCESS);
  auto mm = matmul_op(*ad_desc, *d.y, *cd_desc);
  Buffer cb = upload(p.container), tb = upload(p.table), sb = upload(p.seq_len), abuf = upload(a), obuf = upload(c);
  ASSERT_EQ(t.run({mm.get(), load.get()}, {1, 2, 3, 5, 6}, {cb.get(), tb.get(), sb.get(), abuf.get(), obuf.get()}),
            CUDNN_STATUS_SUCCESS);
  download(obuf, c);
  std::vector<Expect> want;
  for_each_index(cd, [&](const std::vector<int64_t> &i) {
    double sum = 0, mag = 0;
    for (int64_t k = 0; k < inner; ++k) {
      const double x = a.get({i[0], i[1], i[2], k});
      const double kv = key ? expected_element(p, i[0], i[1], i[3], k) : expected_element(p, i[0], i[1], k, i[3]);
      sum += x * kv;
      mag += std::fabs(x * kv);
    }
    want.push_back({sum, static_cast<double>(inner + 4) * 6e-8 * mag + 1e-30});
  });
  EXPECT_TRUE(matches(c, want));
}

TEST_F(BackendPagedCache, LoadThenMatmul) {
  Rng rng(test_seed(72));
  for (int iter = 0; iter < 6; ++iter) check_load_matmul(*this, rng, iter % 2 == 0);
}

// ---- descriptor rules ------------------------------------------------------------

TEST_F(BackendPagedCache, FinalizeRules) {
  // B=2 H=3 S=20 D=8 block 4: pages 5, 12 blocks.
  const std::vector<int64_t> cdims{12, 3, 4, 8}, ydims{2, 3, 20, 8}, sdims{2, 1, 1, 1}, tdims{2, 1, 5, 1};
  auto c = tensor_desc(1, CUDNN_DATA_HALF, cdims, packed(cdims));
  auto y = tensor_desc(2, CUDNN_DATA_HALF, ydims, packed(ydims), true);
  auto s = tensor_desc(3, CUDNN_DATA_INT32, sdims, packed(sdims));
  auto t = tensor_desc(4, CUDNN_DATA_INT32, tdims, packed(tdims));
  EXPECT_EQ(paged_op(c.get(), y.get(), s.get(), t.get())->finalize(), CUDNN_STATUS_SUCCESS);
  const auto fails = [](Desc *cc, Desc *yy, Desc *ss, Desc *tt, const char *needle) {
    auto op = paged_op(cc, yy, ss, tt);
    EXPECT_FAILS_NAMING(op->finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", needle);
  };
  fails(nullptr, nullptr, nullptr, nullptr, "CONTAINER_DESC");
  fails(nullptr, y.get(), s.get(), t.get(), "CONTAINER_DESC");
  fails(c.get(), nullptr, s.get(), t.get(), "YDESC");
  fails(c.get(), y.get(), nullptr, t.get(), "SEQUENCE_DESC");
  fails(c.get(), y.get(), s.get(), nullptr, "PAGE_TABLE_DESC");
  auto yf = tensor_desc(5, CUDNN_DATA_FLOAT, ydims, packed(ydims), true);
  fails(c.get(), yf.get(), s.get(), t.get(), "data type");
  auto t64 = tensor_desc(6, CUDNN_DATA_INT64, tdims, packed(tdims));
  fails(c.get(), y.get(), s.get(), t64.get(), "INT32");
  auto sf = tensor_desc(7, CUDNN_DATA_FLOAT, sdims, packed(sdims));
  fails(c.get(), y.get(), sf.get(), t.get(), "INT64");
  auto cd16 = tensor_desc(8, CUDNN_DATA_HALF, {12, 3, 4, 16}, packed({12, 3, 4, 16}));
  fails(cd16.get(), y.get(), s.get(), t.get(), "head dimension");
  auto ch1 = tensor_desc(9, CUDNN_DATA_HALF, {12, 1, 4, 8}, packed({12, 1, 4, 8}));
  fails(ch1.get(), y.get(), s.get(), t.get(), "heads");
  auto cb3 = tensor_desc(10, CUDNN_DATA_HALF, {12, 3, 3, 8}, packed({12, 3, 3, 8}));
  auto t7 = tensor_desc(11, CUDNN_DATA_INT32, {2, 1, 7, 1}, packed({2, 1, 7, 1}));
  fails(cb3.get(), y.get(), s.get(), t7.get(), "power of two");
  auto t4 = tensor_desc(12, CUDNN_DATA_INT32, {2, 1, 4, 1}, packed({2, 1, 4, 1}));
  fails(c.get(), y.get(), s.get(), t4.get(), "pages");
  auto t8 = tensor_desc(13, CUDNN_DATA_INT32, {2, 1, 8, 1}, packed({2, 1, 8, 1}));
  fails(c.get(), y.get(), s.get(), t8.get(), "pages");
  auto tb3 = tensor_desc(14, CUDNN_DATA_INT32, {3, 1, 5, 1}, packed({3, 1, 5, 1}));
  fails(c.get(), y.get(), s.get(), tb3.get(), "batch");
  auto sb3 = tensor_desc(15, CUDNN_DATA_INT32, {3, 1, 1, 1}, packed({3, 1, 1, 1}));
  fails(c.get(), y.get(), sb3.get(), t.get(), "batch");
  auto s2 = tensor_desc(16, CUDNN_DATA_INT32, {2, 1, 1, 2}, packed({2, 1, 1, 2}));
  fails(c.get(), y.get(), s2.get(), t.get(), "[B, 1, 1, 1]");
  auto th = tensor_desc(17, CUDNN_DATA_INT32, {2, 2, 5, 1}, packed({2, 2, 5, 1}));
  fails(c.get(), y.get(), s.get(), th.get(), "[B, 1, pages, 1]");
  auto c3 = tensor_desc(18, CUDNN_DATA_HALF, {12, 4, 8}, packed({12, 4, 8}));
  fails(c3.get(), y.get(), s.get(), t.get(), "4 dimensions");
  auto y3 = tensor_desc(19, CUDNN_DATA_HALF, {2, 20, 8}, packed({2, 20, 8}), true);
  fails(c.get(), y3.get(), s.get(), t.get(), "4 dimensions");
  // y's form is told by its stride on dim 2 alone: packed [B,H,D,S] is read
  // as [B,H,S,D] and fails; with stride 1 on dim 2 it is K^T and passes.
  auto ydt = tensor_desc(20, CUDNN_DATA_HALF, {2, 3, 8, 20}, packed({2, 3, 8, 20}), true);
  fails(c.get(), ydt.get(), s.get(), t.get(), "head dimension");
  auto ykt = tensor_desc(21, CUDNN_DATA_HALF, {2, 3, 8, 20}, {480, 160, 1, 8}, true);
  EXPECT_EQ(paged_op(c.get(), ykt.get(), s.get(), t.get())->finalize(), CUDNN_STATUS_SUCCESS);
  // Accepted as cuDNN accepts them: INT64 lengths, one block, other types,
  // a non-virtual y, a container in another layout.
  auto s64 = tensor_desc(22, CUDNN_DATA_INT64, sdims, packed(sdims));
  EXPECT_EQ(paged_op(c.get(), y.get(), s64.get(), t.get())->finalize(), CUDNN_STATUS_SUCCESS);
  auto c1 = tensor_desc(23, CUDNN_DATA_HALF, {1, 3, 4, 8}, packed({1, 3, 4, 8}));
  EXPECT_EQ(paged_op(c1.get(), y.get(), s.get(), t.get())->finalize(), CUDNN_STATUS_SUCCESS);
  for (cudnnDataType_t type : {CUDNN_DATA_BFLOAT16, CUDNN_DATA_DOUBLE, CUDNN_DATA_INT8, CUDNN_DATA_FP8_E4M3}) {
    auto ct = tensor_desc(24, type, cdims, packed(cdims));
    auto yt = tensor_desc(25, type, ydims, packed(ydims));
    EXPECT_EQ(paged_op(ct.get(), yt.get(), s.get(), t.get())->finalize(), CUDNN_STATUS_SUCCESS) << type_name(type);
  }
  auto cs = tensor_desc(26, CUDNN_DATA_HALF, cdims, {96, 1, 24, 3});
  EXPECT_EQ(paged_op(cs.get(), y.get(), s.get(), t.get())->finalize(), CUDNN_STATUS_SUCCESS);
}

TEST_F(BackendPagedCache, AttributeRules) {
  const std::vector<int64_t> cdims{12, 3, 4, 8}, ydims{2, 3, 20, 8};
  auto c = tensor_desc(1, CUDNN_DATA_HALF, cdims, packed(cdims));
  auto y = tensor_desc(2, CUDNN_DATA_HALF, ydims, packed(ydims), true);
  auto s = tensor_desc(3, CUDNN_DATA_INT32, {2, 1, 1, 1}, packed({2, 1, 1, 1}));
  auto t = tensor_desc(4, CUDNN_DATA_INT32, {2, 1, 5, 1}, packed({2, 1, 5, 1}));
  Desc op(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR);
  const cudnnBackendDescriptor_t two[2] = {c->d, c->d};
  EXPECT_EQ(cudnnBackendSetAttribute(op.d, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, two),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBackendSetAttribute(op.d, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, two),
            CUDNN_STATUS_BAD_PARAM);
  const int64_t i64 = 3;
  EXPECT_EQ(cudnnBackendSetAttribute(op.d, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, CUDNN_TYPE_INT64, 1,
                                     &i64),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBackendSetAttribute(op.d, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBackendSetAttribute(op.d, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->d),
            CUDNN_STATUS_BAD_PARAM);
  Desc got(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  int64_t n = -1;
  EXPECT_EQ(cudnnBackendGetAttribute(op.d, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                     1, &n, &got.d),
            CUDNN_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, c->d),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, s->d),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, t->d),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnBackendGetAttribute(op.d, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                     1, &n, &got.d),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(n, 1);
  int64_t uid = -1, cnt = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(got.d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &uid),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(uid, 2);
  // cuDNN 9 answers BAD_PARAM to a get of another type; FreeDNN's shared
  // descriptor layer answers BAD_PARAM_ATTRIBUTE_TYPE for every descriptor.
  EXPECT_NE(cudnnBackendGetAttribute(op.d, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, CUDNN_TYPE_INT64, 1, &n, &uid),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, c->d),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(op.finalize(), CUDNN_STATUS_BAD_PARAM);
  EXPECT_GE(engine_count(handle, {&op}), 1);
}

}  // namespace
