// SPDX-License-Identifier: GPL-2.0
// The checkpoint core (lib/src/ckpt_core.cpp) on plain memory, and CRC32C.
//
// Theory of operation: a crash_model stands in for persistent memory.  Each copy
// has what the CPU sees (the memory the core writes) and what is durable.  A
// flush() remembers the lines it names; a fence() makes them durable.  A crash
// keeps the durable image plus, for every 8-byte word the CPU sees differently,
// either its new or its old value at random: any store not yet fenced may or may
// not have reached the media, and cache lines may be written back half updated.
// The model crashes at the k-th fence of a commit, for every k, with many random
// outcomes each; restore must then give the generation before or the one being
// committed, whole, and never anything else.
#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ckpt_core.hpp"
#include "crc32c.hpp"

namespace ck = cxltier::internal::ckpt;
using cxltier::internal::crc32c;
using cxltier::internal::crc32c_have_sse42;
using cxltier::internal::crc32c_sse42;
using cxltier::internal::crc32c_table;
using ::testing::HasSubstr;

namespace {

// --- CRC32C -------------------------------------------------------------------------

struct crc_vector {
	std::vector<unsigned char> data;
	std::uint32_t crc;
};

std::vector<crc_vector> known_vectors()
{
	// RFC 3720 (iSCSI), appendix B.4, and the usual "123456789" check value.
	std::vector<crc_vector> v;
	const char *check = "123456789";
	v.push_back({std::vector<unsigned char>(check, check + 9), 0xE3069283u});
	v.push_back({std::vector<unsigned char>(32, 0x00), 0x8A9136AAu});
	v.push_back({std::vector<unsigned char>(32, 0xFF), 0x62A8AB43u});
	std::vector<unsigned char> up(32), down(32);
	for (int i = 0; i < 32; i++) {
		up[i] = static_cast<unsigned char>(i);
		down[i] = static_cast<unsigned char>(31 - i);
	}
	v.push_back({up, 0x46DD794Eu});
	v.push_back({down, 0x113FDB5Cu});
	v.push_back({{}, 0u});
	return v;
}

// The table implementation gives the published values.
TEST(Crc32c, TableKnownVectors)
{
	for (const auto &v : known_vectors())
		EXPECT_EQ(crc32c_table(0, v.data.data(), v.data.size()), v.crc) << v.data.size();
}

// The SSE4.2 instruction gives the same values (skipped on a CPU without it).
TEST(Crc32c, Sse42KnownVectors)
{
	if (!crc32c_have_sse42())
		GTEST_SKIP() << "this CPU has no SSE4.2";
	for (const auto &v : known_vectors())
		EXPECT_EQ(crc32c_sse42(0, v.data.data(), v.data.size()), v.crc) << v.data.size();
}

// Both agree on random data at every alignment and length, and chaining two
// calls gives the CRC of the whole.
TEST(Crc32c, ImplementationsAgreeAndChain)
{
	std::mt19937_64 rng(11);
	std::vector<unsigned char> buf(4096 + 16);
	for (auto &b : buf)
		b = static_cast<unsigned char>(rng());
	for (int i = 0; i < 500; i++) {
		std::size_t off = rng() % 16, len = rng() % 4096, cut = len ? rng() % len : 0;
		const unsigned char *p = buf.data() + off;
		std::uint32_t whole = crc32c_table(0, p, len);
		if (crc32c_have_sse42()) {
			ASSERT_EQ(crc32c_sse42(0, p, len), whole) << off << "+" << len;
		}
		ASSERT_EQ(crc32c(crc32c(0, p, cut), p + cut, len - cut), whole);
		ASSERT_EQ(crc32c_table(crc32c_table(0, p, cut), p + cut, len - cut), whole);
	}
}

// --- the crash model ------------------------------------------------------------------

struct crashed {};

class crash_model final : public cxltier::internal::persist_ops {
public:
	struct copy {
		std::vector<std::byte> cur, durable;
		std::vector<std::pair<std::size_t, std::vector<std::byte>>> pending;
	};

	crash_model(unsigned int copies, std::uint64_t bytes) : copies_(copies)
	{
		for (auto &c : copies_) {
			c.cur.assign(bytes, std::byte{0});
			c.durable = c.cur;
		}
	}

	// Views of every copy; missing ones by index have no memory.
	std::vector<ck::copy_view> views(std::vector<unsigned int> missing = {})
	{
		std::vector<ck::copy_view> v(copies_.size());
		for (std::size_t i = 0; i < copies_.size(); i++) {
			v[i].label = "region 'job@" + std::to_string(i) + "'";
			if (std::find(missing.begin(), missing.end(), i) != missing.end()) {
				v[i].why = v[i].label + " does not exist";
				continue;
			}
			v[i].base = copies_[i].cur.data();
			v[i].len = copies_[i].cur.size();
		}
		return v;
	}

	void flush(const void *p, std::size_t n) override
	{
		auto *b = static_cast<const std::byte *>(p);
		for (auto &c : copies_) {
			if (b < c.cur.data() || b >= c.cur.data() + c.cur.size())
				continue;
			std::size_t off = static_cast<std::size_t>(b - c.cur.data());
			std::size_t first = off / 64 * 64, end = std::min(c.cur.size(), (off + n + 63) / 64 * 64);
			c.pending.emplace_back(first, std::vector<std::byte>(c.cur.begin() + first,
									     c.cur.begin() + end));
			return;
		}
		ADD_FAILURE() << "flush of memory outside every copy";
	}

	void fence() override
	{
		if (fences_++ == crash_at)
			throw crashed{};
		for (auto &c : copies_) {
			for (auto &[off, bytes] : c.pending)
				std::copy(bytes.begin(), bytes.end(), c.durable.begin() + off);
			c.pending.clear();
		}
	}

	// The power fails: what the media keeps becomes what the CPU sees.
	void crash(std::mt19937_64 &rng)
	{
		for (auto &c : copies_) {
			for (std::size_t w = 0; w < c.cur.size(); w += 8) {
				if (std::memcmp(&c.cur[w], &c.durable[w], 8) && (rng() & 1))
					std::memcpy(&c.durable[w], &c.cur[w], 8);
			}
			c.cur = c.durable;
			c.pending.clear();
		}
		fences_ = 0;
		crash_at = -1;
	}

	// Everything written so far is durable (a clean shutdown).
	void settle()
	{
		for (auto &c : copies_) {
			c.durable = c.cur;
			c.pending.clear();
		}
		fences_ = 0;
	}

	std::vector<std::byte> &memory(unsigned int i) { return copies_[i].cur; }
	int fences() const { return fences_; }

	int crash_at = -1; // the fence (from 0) at which to crash; -1 never

private:
	std::vector<copy> copies_;
	int fences_ = 0;
};

constexpr std::uint64_t capacity = 64 * 1024 + 100; // not a page multiple
const ck::uuid test_id = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

std::vector<std::byte> random_state(std::mt19937_64 &rng, std::size_t n)
{
	std::vector<std::byte> v(n);
	for (auto &b : v)
		b = static_cast<std::byte>(rng());
	return v;
}

// A formatted store of @copies copies in a crash model.
struct store {
	explicit store(unsigned int copies) : m(copies, ck::copy_bytes(capacity)), copies(copies)
	{
		auto v = m.views();
		for (unsigned int k = 0; k < copies; k++)
			ck::format(v[k], test_id, k, copies, capacity, 1000, m);
		m.settle();
	}

	// A whole commit: begin, staging writes, commit (staged, mode 1); from a
	// buffer (mode 0); or begin, in-order writes to every copy checksummed on the
	// way, commit (direct, mode 2: cxltier_ckpt_write() without a staging pointer).
	std::uint64_t commit(const std::vector<std::byte> &data, int mode,
			     std::vector<unsigned int> missing = {})
	{
		auto v = m.views(missing);
		auto s = ck::scan(v);
		auto p = ck::plan(v, s, "job");
		EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.err().msg);
		if (mode == 1) {
			ck::begin(v, *p, m);
			std::memcpy(ck::staging(v, *p), data.data(), data.size());
			ck::commit_staged(v, *p, data.size(), 2000 + p->generation, m);
		} else if (mode == 2) {
			ck::begin(v, *p, m);
			std::uint32_t crc = 0;
			for (std::size_t off = 0; off < data.size(); off += 5000) {
				std::size_t n = std::min<std::size_t>(5000, data.size() - off);
				ck::write_all(v, *p, off, data.data() + off, n, m);
				crc = cxltier::internal::crc32c(crc, data.data() + off, n);
			}
			ck::commit_written(v, *p, data.size(), crc, 2000 + p->generation, m);
		} else {
			ck::commit_from(v, *p, data.data(), data.size(), 2000 + p->generation, m);
		}
		return p->generation;
	}

	ck::restore_result restore(std::vector<std::byte> &out, std::vector<unsigned int> missing = {})
	{
		out.assign(capacity, std::byte{0x5a});
		auto v = m.views(missing);
		return ck::restore(v, ck::scan(v), out.data(), out.size());
	}

	crash_model m;
	unsigned int copies;
};

bool same(const std::vector<std::byte> &restored, const std::vector<std::byte> &want,
	  std::uint64_t size)
{
	return size == want.size() && std::equal(want.begin(), want.end(), restored.begin());
}

// --- layout ---------------------------------------------------------------------------

// Capacities of 0 and beyond the maximum have no layout; others fit header, two
// record pages and two page-rounded data areas.
TEST(CkptCore, CopyBytes)
{
	EXPECT_EQ(ck::copy_bytes(0), 0u);
	EXPECT_EQ(ck::copy_bytes(ck::max_capacity() + 1), 0u);
	EXPECT_EQ(ck::copy_bytes(1), 4096u + 2 * (4096 + 4096));
	EXPECT_EQ(ck::copy_bytes(8192), 4096u + 2 * (4096 + 8192));
	EXPECT_LE(ck::copy_bytes(ck::max_capacity()), 1ull << 48);
}

// A fresh store has a header per copy and nothing committed.
TEST(CkptCore, FreshStoreHasNothing)
{
	store st(2);
	std::vector<std::byte> out;
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 0u);
	ASSERT_EQ(r.copies.size(), 2u);
	for (const auto &c : r.copies)
		EXPECT_EQ(c.state, ck::copy_state::stale);
	auto s = ck::scan(st.m.views());
	EXPECT_TRUE(s.usable);
	EXPECT_EQ(s.nr_copies, 2u);
	EXPECT_EQ(s.capacity, capacity);
	EXPECT_EQ(s.id, test_id);
}

// A region of zeroes (creation cut short) is no checkpoint, and says so.
TEST(CkptCore, ZeroRegionIsNotACheckpoint)
{
	crash_model m(1, ck::copy_bytes(capacity));
	auto v = m.views();
	auto s = ck::scan(v);
	EXPECT_FALSE(s.usable);
	EXPECT_THAT(s.copies[0].why, HasSubstr("no checkpoint header"));
	auto p = ck::plan(v, s, "job");
	ASSERT_FALSE(p.ok());
	EXPECT_EQ(p.err().code, -EIO);
}

class CkptCopies : public ::testing::TestWithParam<std::tuple<unsigned int, int>> {};

const char *mode_name(int mode)
{
	return mode == 0 ? "buffer" : mode == 1 ? "staged" : "direct";
}

// Generations follow each other, each restored whole, with its size and time, from
// a buffer commit and a staged one alike; each copy alternates its slots.
TEST_P(CkptCopies, CommitsAndRestores)
{
	auto [copies, staged] = GetParam();
	store st(copies);
	std::mt19937_64 rng(copies * 2 + staged);
	std::vector<std::byte> out;
	for (std::uint64_t g = 1; g <= 5; g++) {
		auto data = random_state(rng, rng() % capacity + 1);
		EXPECT_EQ(st.commit(data, staged), g);
		auto r = st.restore(out);
		EXPECT_EQ(r.generation, g);
		EXPECT_EQ(r.time_ns, 2000 + g);
		EXPECT_TRUE(same(out, data, r.size));
		for (const auto &c : r.copies) {
			EXPECT_EQ(c.state, ck::copy_state::ok);
			EXPECT_EQ(c.generation, g);
		}
		auto s = ck::scan(st.m.views());
		EXPECT_EQ(s.copies[0].newest(), static_cast<int>((g - 1) % 2));
	}
}

// A commit of 0 bytes is a generation like any other.
TEST_P(CkptCopies, EmptyState)
{
	auto [copies, staged] = GetParam();
	store st(copies);
	std::vector<std::byte> out;
	EXPECT_EQ(st.commit({}, staged), 1u);
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 1u);
	EXPECT_EQ(r.size, 0u);
}

// The crash test: generation 2 is committed; the commit of generation 3 crashes at
// each of its fences in turn (and once after the last), with 40 random outcomes of
// what reached the media each time.  Restore gives generation 2 with its data, or
// 3 with its data once the records' fence was reached, and 3 when the commit
// returned.  A later commit after the crash works and restores.
TEST_P(CkptCopies, CrashAtEveryStep)
{
	auto [copies, staged] = GetParam();
	std::mt19937_64 rng(100 + copies * 2 + staged);
	int fences_per_commit = -1;
	unsigned int trials = 0, got_new = 0;
	for (int k = 0;; k++) {
		for (int seed = 0; seed < 40; seed++) {
			store st(copies);
			auto d1 = random_state(rng, capacity);
			auto d2 = random_state(rng, capacity / 2 + rng() % (capacity / 2));
			auto d3 = random_state(rng, rng() % capacity + 1);
			st.commit(d1, staged);
			st.commit(d2, staged);
			st.m.settle();
			st.m.crash_at = k;
			bool finished = true;
			try {
				st.commit(d3, staged);
			} catch (const crashed &) {
				finished = false;
			}
			if (finished && fences_per_commit < 0)
				fences_per_commit = st.m.fences();
			st.m.crash(rng);
			std::vector<std::byte> out;
			auto r = st.restore(out);
			trials++;
			if (finished) {
				ASSERT_EQ(r.generation, 3u) << "crash after the commit returned";
			} else {
				ASSERT_TRUE(r.generation == 2 || r.generation == 3)
					<< "fence " << k << " seed " << seed << ": generation " << r.generation;
			}
			if (r.generation == 2) {
				ASSERT_TRUE(same(out, d2, r.size)) << "torn generation 2 at fence " << k;
			} else {
				got_new++;
				ASSERT_TRUE(same(out, d3, r.size)) << "torn generation 3 at fence " << k;
			}
			// No copy is reported bad or diverged after a mere crash.
			for (const auto &c : r.copies) {
				ASSERT_NE(c.state, ck::copy_state::bad) << c.message;
				ASSERT_NE(c.state, ck::copy_state::diverged) << c.message;
			}
			// And the store goes on.
			auto d4 = random_state(rng, rng() % capacity + 1);
			std::uint64_t g4 = st.commit(d4, staged);
			ASSERT_EQ(g4, r.generation + 1);
			st.m.crash(rng); // after the commit returned: all of it is durable
			r = st.restore(out);
			ASSERT_EQ(r.generation, g4);
			ASSERT_TRUE(same(out, d4, r.size));
		}
		if (fences_per_commit >= 0 && k >= fences_per_commit)
			break;
		ASSERT_LT(k, 20) << "the commit never finished";
	}
	// begin, data and records: three fences whatever the number of copies.
	EXPECT_EQ(fences_per_commit, 3);
	EXPECT_GT(got_new, 0u);
	EXPECT_LT(got_new, trials);
}

INSTANTIATE_TEST_SUITE_P(, CkptCopies,
			 ::testing::Combine(::testing::Values(1u, 2u), ::testing::Values(0, 1, 2)),
			 [](const auto &info) {
				 return std::to_string(std::get<0>(info.param)) + "copies_" +
					mode_name(std::get<1>(info.param));
			 });

// A record cut short (half of its words new, half zero) fails its checksum: the
// slot reads empty and the previous generation is restored.
TEST(CkptCore, TornRecordReadsEmpty)
{
	store st(1);
	std::mt19937_64 rng(7);
	auto d1 = random_state(rng, 1000), d2 = random_state(rng, 2000);
	st.commit(d1, false);
	st.commit(d2, false);
	auto s = ck::scan(st.m.views());
	int newest = s.copies[0].newest();
	auto *h = reinterpret_cast<const ck::header *>(st.m.memory(0).data());
	std::byte *rec = st.m.memory(0).data() + h->slot_offset[newest];
	for (int w = 4; w < 8; w++)
		std::memset(rec + w * 8, 0, 8);
	std::vector<std::byte> out;
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 1u);
	EXPECT_TRUE(same(out, d1, r.size));
	EXPECT_EQ(r.copies[0].state, ck::copy_state::ok);
}

// Restore (not verify) reads the data of one copy when it verifies: a copy it did
// not read is reported from its records; verify reads every copy and finds it bad.
TEST(CkptCore, RestoreReadsOneCopy)
{
	store st(2);
	std::mt19937_64 rng(18);
	auto d1 = random_state(rng, 5000), d2 = random_state(rng, 6000);
	st.commit(d1, 2);
	st.commit(d2, 2);
	auto s = ck::scan(st.m.views());
	int newest = s.copies[1].newest();
	auto *h = reinterpret_cast<const ck::header *>(st.m.memory(1).data());
	st.m.memory(1)[h->slot_offset[newest] + ck::data_offset + 99] ^= std::byte{0x01};
	std::vector<std::byte> out(capacity);
	auto v = st.m.views();
	auto r = ck::restore(v, ck::scan(v), out.data(), out.size(), false);
	EXPECT_EQ(r.generation, 2u);
	EXPECT_EQ(r.source, 0);
	EXPECT_TRUE(same(out, d2, r.size));
	EXPECT_EQ(r.copies[1].state, ck::copy_state::ok);
	EXPECT_EQ(r.copies[1].generation, 2u);
	r = ck::restore(v, ck::scan(v), nullptr, 0, true);
	EXPECT_EQ(r.copies[1].state, ck::copy_state::bad);
	EXPECT_EQ(r.copies[1].generation, 1u);
}

// Data corrupted in one copy: detected by its checksum, the other copy used, the
// copy reported bad with a message that names the slot and generation.
TEST(CkptCore, CorruptCopyDetected)
{
	store st(2);
	std::mt19937_64 rng(8);
	auto d1 = random_state(rng, 5000), d2 = random_state(rng, 6000);
	st.commit(d1, true);
	st.commit(d2, true);
	auto s = ck::scan(st.m.views());
	int newest = s.copies[0].newest();
	auto *h = reinterpret_cast<const ck::header *>(st.m.memory(0).data());
	st.m.memory(0)[h->slot_offset[newest] + ck::data_offset + 4321] ^= std::byte{0x10};
	std::vector<std::byte> out;
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 2u);
	EXPECT_EQ(r.source, 1);
	EXPECT_TRUE(same(out, d2, r.size));
	EXPECT_EQ(r.copies[0].state, ck::copy_state::bad);
	EXPECT_EQ(r.copies[0].generation, 1u); // its older slot still verifies
	EXPECT_THAT(r.copies[0].message, HasSubstr("generation 2): data checksum"));
	EXPECT_EQ(r.copies[1].state, ck::copy_state::ok);
	EXPECT_THAT(r.messages("job"), HasSubstr("checkpoint 'job' copy 0 bad"));
	EXPECT_THAT(r.messages("job"), HasSubstr("read from copy 1"));
}

// The newest generation corrupt in every copy: the one before is restored, and
// both copies are bad.
TEST(CkptCore, CorruptNewestEverywhereFallsBack)
{
	store st(2);
	std::mt19937_64 rng(9);
	auto d1 = random_state(rng, 5000), d2 = random_state(rng, 6000);
	st.commit(d1, false);
	st.commit(d2, false);
	auto s = ck::scan(st.m.views());
	for (unsigned int k = 0; k < 2; k++) {
		auto *h = reinterpret_cast<const ck::header *>(st.m.memory(k).data());
		st.m.memory(k)[h->slot_offset[s.copies[k].newest()] + ck::data_offset] ^= std::byte{1};
	}
	std::vector<std::byte> out;
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 1u);
	EXPECT_TRUE(same(out, d1, r.size));
	EXPECT_EQ(r.copies[0].state, ck::copy_state::bad);
	EXPECT_EQ(r.copies[1].state, ck::copy_state::bad);
}

// A corrupt header makes its copy bad; the other copy is restored.
TEST(CkptCore, CorruptHeader)
{
	store st(2);
	std::mt19937_64 rng(10);
	auto d1 = random_state(rng, 100);
	st.commit(d1, false);
	st.m.memory(1)[40] ^= std::byte{4}; // capacity
	std::vector<std::byte> out;
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 1u);
	EXPECT_EQ(r.copies[1].state, ck::copy_state::bad);
	EXPECT_THAT(r.copies[1].message, HasSubstr("header checksum"));
	// A commit writes the good copy only.
	auto v = st.m.views();
	auto p = ck::plan(v, ck::scan(v), "job");
	ASSERT_TRUE(p.ok());
	EXPECT_EQ(p->copies, std::vector<unsigned int>{0});
}

// A copy from another checkpoint (another uuid) is not mixed in.
TEST(CkptCore, ForeignCopy)
{
	store st(2);
	ck::uuid other = test_id;
	other[0] ^= 0xff;
	auto v = st.m.views();
	ck::format(v[1], other, 1, 2, capacity, 1, st.m);
	auto s = ck::scan(v);
	EXPECT_TRUE(s.copies[0].header_ok);
	EXPECT_FALSE(s.copies[1].header_ok);
	EXPECT_THAT(s.copies[1].why, HasSubstr("another checkpoint"));
}

// A missing copy: restored from the other, reported missing with its reason.
TEST(CkptCore, MissingCopy)
{
	store st(2);
	std::mt19937_64 rng(12);
	auto d1 = random_state(rng, 3000);
	st.commit(d1, true);
	std::vector<std::byte> out;
	auto r = st.restore(out, {0});
	EXPECT_EQ(r.generation, 1u);
	EXPECT_EQ(r.source, 1);
	EXPECT_TRUE(same(out, d1, r.size));
	EXPECT_EQ(r.copies[0].state, ck::copy_state::missing);
	EXPECT_THAT(r.copies[0].message, HasSubstr("does not exist"));
	EXPECT_THAT(r.messages("job"), HasSubstr("copy 0 missing"));
}

// Copies with different generations: commits while copy 1 is missing leave it
// stale; the newest is restored; the next commit with both brings it up to date.
TEST(CkptCore, CopiesWithDifferentGenerations)
{
	store st(2);
	std::mt19937_64 rng(13);
	auto d1 = random_state(rng, 3000), d2 = random_state(rng, 3000),
	     d3 = random_state(rng, 3000), d4 = random_state(rng, 100);
	st.commit(d1, false);
	EXPECT_EQ(st.commit(d2, false, {1}), 2u);
	EXPECT_EQ(st.commit(d3, true, {1}), 3u);
	std::vector<std::byte> out;
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 3u);
	EXPECT_EQ(r.source, 0);
	EXPECT_TRUE(same(out, d3, r.size));
	EXPECT_EQ(r.copies[0].state, ck::copy_state::ok);
	EXPECT_EQ(r.copies[1].state, ck::copy_state::stale);
	EXPECT_EQ(r.copies[1].generation, 1u);
	// Copy 0 lost: copy 1's older generation is what there is.
	r = st.restore(out, {0});
	EXPECT_EQ(r.generation, 1u);
	EXPECT_TRUE(same(out, d1, r.size));
	// Both back: generation 4 goes to both.
	EXPECT_EQ(st.commit(d4, true), 4u);
	r = st.restore(out);
	EXPECT_EQ(r.copies[0].state, ck::copy_state::ok);
	EXPECT_EQ(r.copies[1].state, ck::copy_state::ok);
	r = st.restore(out, {0});
	EXPECT_EQ(r.generation, 4u);
	EXPECT_TRUE(same(out, d4, r.size));
}

// A header of a newer major format: reported, the copy not read, and no commit
// writes over it.
TEST(CkptCore, NewerFormatHeader)
{
	store st(2);
	std::mt19937_64 rng(14);
	auto d1 = random_state(rng, 300);
	st.commit(d1, false);
	auto *h = reinterpret_cast<ck::header *>(st.m.memory(1).data());
	h->major = ck::format_major + 1;
	auto before = st.m.memory(1);
	std::vector<std::byte> out;
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 1u);
	EXPECT_EQ(r.copies[1].state, ck::copy_state::newer_format);
	EXPECT_THAT(r.copies[1].message, HasSubstr("newer than this library"));
	auto v = st.m.views();
	auto p = ck::plan(v, ck::scan(v), "job");
	ASSERT_FALSE(p.ok());
	EXPECT_EQ(p.err().code, -EPROTONOSUPPORT);
	EXPECT_THAT(p.err().msg, HasSubstr("header of a newer format"));
	EXPECT_EQ(st.m.memory(1), before);
}

// A slot record of a newer major format: the same, for one slot.
TEST(CkptCore, NewerFormatSlot)
{
	store st(1);
	std::mt19937_64 rng(15);
	auto d1 = random_state(rng, 300);
	st.commit(d1, false);
	auto *h = reinterpret_cast<const ck::header *>(st.m.memory(0).data());
	auto *rec = reinterpret_cast<ck::record *>(st.m.memory(0).data() + h->slot_offset[1]);
	rec->magic = ck::record_magic;
	rec->major = ck::format_major + 1;
	std::vector<std::byte> out;
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 1u); // slot 0 of this format still reads
	EXPECT_TRUE(r.newer);
	EXPECT_EQ(r.copies[0].state, ck::copy_state::newer_format);
	auto v = st.m.views();
	auto p = ck::plan(v, ck::scan(v), "job");
	ASSERT_FALSE(p.ok());
	EXPECT_EQ(p.err().code, -EPROTONOSUPPORT);
	EXPECT_THAT(p.err().msg, HasSubstr("a slot of a newer format"));
}

// A buffer too small: the generation is reported but not read.
TEST(CkptCore, BufferTooSmall)
{
	store st(1);
	std::mt19937_64 rng(16);
	auto d1 = random_state(rng, 3000);
	st.commit(d1, false);
	std::vector<std::byte> out(100);
	auto v = st.m.views();
	auto r = ck::restore(v, ck::scan(v), out.data(), out.size());
	EXPECT_EQ(r.generation, 1u);
	EXPECT_EQ(r.size, 3000u);
	EXPECT_EQ(r.source, -1);
	EXPECT_EQ(r.copies[0].state, ck::copy_state::ok);
}

// peek() reads records only: it sees the newest record even when its data is bad.
TEST(CkptCore, PeekReadsRecordsOnly)
{
	store st(1);
	std::mt19937_64 rng(17);
	st.commit(random_state(rng, 10), false);
	st.commit(random_state(rng, 20), false);
	auto *h = reinterpret_cast<const ck::header *>(st.m.memory(0).data());
	auto s = ck::scan(st.m.views());
	st.m.memory(0)[h->slot_offset[s.copies[0].newest()] + ck::data_offset] ^= std::byte{1};
	auto v = st.m.views();
	auto r = ck::peek(v, ck::scan(v));
	EXPECT_EQ(r.generation, 2u);
	EXPECT_EQ(r.size, 20u);
	EXPECT_EQ(r.copies[0].state, ck::copy_state::ok);
}

// --- lineage ----------------------------------------------------------------------------

// A commit by @who, a job's committer (what it restored or committed last), at @now.
std::uint64_t commit_by(store &st, ck::committer &who, const std::vector<std::byte> &data,
			std::vector<unsigned int> missing = {}, std::uint64_t now = 0)
{
	auto v = st.m.views(missing);
	auto p = ck::plan(v, ck::scan(v), "job", who);
	EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.err().msg);
	if (!p.ok())
		return 0;
	if (!now)
		now = 2000 + p->generation;
	ck::commit_from(v, *p, data.data(), data.size(), now, st.m);
	ck::committed(who, *p, now);
	return p->generation;
}

// A restore by @who: what it returns is what @who's next commit builds on.
ck::restore_result restore_by(store &st, ck::committer &who, std::vector<std::byte> &out,
			      std::vector<unsigned int> missing = {})
{
	auto r = st.restore(out, missing);
	ck::restored(who, r, true);
	return r;
}

// Issue 22's sequence: A1 on both copies, A2 and A3 while copy 1 is gone; then copy
// 0 gone, a restart restores generation 1 from copy 1 and commits B2 and B3 there.
// With both copies back, B3 is restored (the job went on from the restore) and
// copy 0, whose A3 the job abandoned, is diverged: never read, not even when B3's
// data fails; the next commit rewrites it.
TEST(CkptLineage, ReturningCopyOfAnAbandonedTimelineIsDiverged)
{
	store st(2);
	std::mt19937_64 rng(30);
	auto a1 = random_state(rng, 3000), a2 = random_state(rng, 3100), a3 = random_state(rng, 3200),
	     b2 = random_state(rng, 4100), b3 = random_state(rng, 4200), c4 = random_state(rng, 500);
	std::vector<std::byte> out;
	ck::committer first;
	EXPECT_EQ(commit_by(st, first, a1), 1u);
	EXPECT_EQ(commit_by(st, first, a2, {1}), 2u);
	EXPECT_EQ(commit_by(st, first, a3, {1}), 3u);

	ck::committer second; // the job restarted
	auto r = restore_by(st, second, out, {0});
	ASSERT_EQ(r.generation, 1u);
	EXPECT_TRUE(same(out, a1, r.size));
	EXPECT_EQ(commit_by(st, second, b2, {0}), 2u);
	EXPECT_EQ(commit_by(st, second, b3, {0}), 3u);

	r = st.restore(out);
	EXPECT_EQ(r.generation, 3u);
	EXPECT_EQ(r.source, 1);
	EXPECT_TRUE(same(out, b3, r.size));
	EXPECT_EQ(r.copies[0].state, ck::copy_state::diverged);
	EXPECT_EQ(r.copies[0].generation, 3u);
	EXPECT_THAT(r.copies[0].message, HasSubstr("not on the timeline of generation 3 (epoch 2)"));
	EXPECT_EQ(r.copies[1].state, ck::copy_state::ok);
	EXPECT_THAT(r.messages("job"), HasSubstr("checkpoint 'job' copy 0 diverged"));
	// Records only: the same.
	auto v = st.m.views();
	auto pk = ck::peek(v, ck::scan(v));
	EXPECT_EQ(pk.source, 1);
	EXPECT_EQ(pk.copies[0].state, ck::copy_state::diverged);
	EXPECT_EQ(pk.copies[1].state, ck::copy_state::ok);

	// B3's data damaged: B2 (its ancestor) is restored, never A3.
	auto *h = reinterpret_cast<const ck::header *>(st.m.memory(1).data());
	auto s = ck::scan(v);
	std::size_t at = h->slot_offset[s.copies[1].newest()] + ck::data_offset + 7;
	st.m.memory(1)[at] ^= std::byte{2};
	r = st.restore(out);
	EXPECT_EQ(r.generation, 2u);
	EXPECT_TRUE(same(out, b2, r.size));
	EXPECT_EQ(r.copies[0].state, ck::copy_state::diverged);
	st.m.memory(1)[at] ^= std::byte{2};

	// The next commit resyncs copy 0 from the job's timeline.
	ck::committer third;
	r = restore_by(st, third, out);
	ASSERT_EQ(r.generation, 3u);
	EXPECT_EQ(commit_by(st, third, c4), 4u);
	r = st.restore(out);
	EXPECT_EQ(r.generation, 4u);
	EXPECT_TRUE(same(out, c4, r.size));
	for (const auto &c : r.copies)
		EXPECT_EQ(c.state, ck::copy_state::ok) << c.message;
	// Copy 0 alone gives C4 too, and never A3 after that.
	r = st.restore(out, {1});
	EXPECT_EQ(r.generation, 4u);
	EXPECT_TRUE(same(out, c4, r.size));
}

// The plain case: copy 1 missing for a while, the job going on without a restart.
// Back, it is behind (stale, its generation 1 an ancestor), not diverged, and the
// next commit brings it up to date.  Also when the job restarted meanwhile and
// restored from copy 0 (a new timeline that still has generation 1 behind it).
TEST(CkptLineage, ReturningCopyBehindIsStale)
{
	for (bool restart : {false, true}) {
		SCOPED_TRACE(restart ? "with a restart" : "without a restart");
		store st(2);
		std::mt19937_64 rng(31);
		auto a1 = random_state(rng, 3000), a2 = random_state(rng, 3100),
		     a3 = random_state(rng, 3200), a4 = random_state(rng, 100);
		std::vector<std::byte> out;
		ck::committer job;
		EXPECT_EQ(commit_by(st, job, a1), 1u);
		EXPECT_EQ(commit_by(st, job, a2, {1}), 2u);
		if (restart) {
			job = {};
			ASSERT_EQ(restore_by(st, job, out, {1}).generation, 2u);
		}
		EXPECT_EQ(commit_by(st, job, a3, {1}), 3u);
		auto r = st.restore(out);
		EXPECT_EQ(r.generation, 3u);
		EXPECT_TRUE(same(out, a3, r.size));
		EXPECT_EQ(r.copies[0].state, ck::copy_state::ok);
		EXPECT_EQ(r.copies[1].state, ck::copy_state::stale);
		EXPECT_EQ(r.copies[1].generation, 1u);
		EXPECT_EQ(r.messages("job"), "");
		EXPECT_EQ(commit_by(st, job, a4), 4u);
		r = st.restore(out);
		for (const auto &c : r.copies)
			EXPECT_EQ(c.state, ck::copy_state::ok) << c.message;
		r = st.restore(out, {0});
		EXPECT_EQ(r.generation, 4u);
		EXPECT_TRUE(same(out, a4, r.size));
	}
}

// Two restarts that could not see each other's commits (each restored generation 1
// while the other copy was gone) fork timelines of the same epoch: the one started
// later wins, whatever the copy order, and the other copy is diverged.
TEST(CkptLineage, TiedForksLaterStartWins)
{
	for (unsigned int later_on : {0u, 1u}) {
		SCOPED_TRACE("later fork on copy " + std::to_string(later_on));
		store st(2);
		std::mt19937_64 rng(32);
		auto a1 = random_state(rng, 1000), x = random_state(rng, 1100),
		     y = random_state(rng, 1200);
		std::vector<std::byte> out;
		ck::committer job;
		EXPECT_EQ(commit_by(st, job, a1), 1u);
		unsigned int early = 1 - later_on;
		ck::committer p, q;
		ASSERT_EQ(restore_by(st, p, out, {later_on}).generation, 1u);
		EXPECT_EQ(commit_by(st, p, x, {later_on}, 5000), 2u);
		EXPECT_EQ(commit_by(st, p, x, {later_on}, 5001), 3u);
		ASSERT_EQ(restore_by(st, q, out, {early}).generation, 1u);
		EXPECT_EQ(commit_by(st, q, y, {early}, 6000), 2u);
		auto r = st.restore(out);
		EXPECT_EQ(r.generation, 2u);
		EXPECT_EQ(r.source, static_cast<int>(later_on));
		EXPECT_TRUE(same(out, y, r.size));
		EXPECT_EQ(r.copies[early].state, ck::copy_state::diverged);
		EXPECT_EQ(r.copies[later_on].state, ck::copy_state::ok);
	}
}

// The newest record's data fails its checksum: the next commit writes over that
// slot, not over the last generation that verifies, so a crash during it still
// leaves generation 1 to restore (issue 22, item 9).
TEST(CkptLineage, PlanKeepsLastVerifiedGeneration)
{
	std::mt19937_64 rng(33);
	for (int k = 0; k < 3; k++) {
		SCOPED_TRACE("crash at fence " + std::to_string(k));
		store st(1);
		auto d1 = random_state(rng, 2000), d2 = random_state(rng, 2100),
		     d3 = random_state(rng, 2200);
		st.commit(d1, 0);
		st.commit(d2, 0);
		auto v = st.m.views();
		auto s = ck::scan(v);
		int g1 = 1 - s.copies[0].newest(), g2 = s.copies[0].newest();
		auto *h = reinterpret_cast<const ck::header *>(st.m.memory(0).data());
		st.m.memory(0)[h->slot_offset[g2] + ck::data_offset + 11] ^= std::byte{8};
		st.m.settle();
		auto p = ck::plan(v, ck::scan(v), "job");
		ASSERT_TRUE(p.ok());
		EXPECT_EQ(p->target[0], static_cast<unsigned int>(g2));
		EXPECT_NE(p->target[0], static_cast<unsigned int>(g1));
		st.m.crash_at = k;
		EXPECT_THROW(st.commit(d3, 1), crashed);
		st.m.crash(rng);
		std::vector<std::byte> out;
		auto r = st.restore(out);
		ASSERT_EQ(r.generation, 1u);
		EXPECT_TRUE(same(out, d1, r.size));
	}
}

// Checkpoints of format 1.0 (records without lineage) restore; a commit on top of
// them builds on their newest; a copy that comes back with 1.0 generations only is
// behind, not diverged.
TEST(CkptLineage, Format10RecordsStillRestore)
{
	store st(2);
	std::mt19937_64 rng(34);
	auto d1 = random_state(rng, 900), d2 = random_state(rng, 800), d3 = random_state(rng, 700);
	st.commit(d1, 0);
	st.commit(d2, 0);
	// Make every record what 1.0 wrote: minor 0, its crc over it, no lineage.
	for (unsigned int k = 0; k < 2; k++) {
		auto *h = reinterpret_cast<const ck::header *>(st.m.memory(k).data());
		for (unsigned int sl = 0; sl < ck::nr_slots; sl++) {
			std::byte *base = st.m.memory(k).data() + h->slot_offset[sl];
			auto *rec = reinterpret_cast<ck::record *>(base);
			rec->minor = 0;
			rec->crc = crc32c(0, rec, offsetof(ck::record, crc));
			std::memset(base + ck::lineage_offset, 0, sizeof(ck::lineage));
		}
	}
	std::vector<std::byte> out;
	auto r = st.restore(out);
	EXPECT_EQ(r.generation, 2u);
	EXPECT_TRUE(same(out, d2, r.size));
	for (const auto &c : r.copies)
		EXPECT_EQ(c.state, ck::copy_state::ok) << c.message;
	ck::committer job;
	restore_by(st, job, out);
	EXPECT_EQ(commit_by(st, job, d3, {1}), 3u);
	r = st.restore(out);
	EXPECT_EQ(r.generation, 3u);
	EXPECT_TRUE(same(out, d3, r.size));
	EXPECT_EQ(r.copies[1].state, ck::copy_state::stale);
	EXPECT_EQ(r.copies[1].generation, 2u);
}

} // namespace
