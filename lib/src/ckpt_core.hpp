// SPDX-License-Identifier: GPL-2.0
// The checkpoint store's on-device format and its commit and restore, on plain
// byte ranges: one (base pointer, length) per copy.  Nothing here knows about the
// module; ckpt.cpp maps the persistent regions "NAME@0" and "NAME@1" and hands
// their memory in, and the host tests hand in ordinary memory with a persist_ops
// that models what a crash keeps.  The format is Documentation/persistence.rst,
// section "Checkpoint format"; the offsets below are its tables.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pmem.hpp"
#include "result.hpp"

namespace cxltier::internal::ckpt {

// "CXLTCKPT", "CXLTSLOT" and "CXLTLINE" as stored (little-endian).
constexpr std::uint64_t header_magic = 0x54504b43544c5843ull;
constexpr std::uint64_t record_magic = 0x544f4c53544c5843ull;
constexpr std::uint64_t lineage_magic = 0x454e494c544c5843ull;
// Readers accept any minor of their major; a newer major is never read or written.
// Minor 1 adds the lineage after each record; a 1.0 record has none (its commit is
// on the "legacy" timeline 0, ordered by generation as 1.0 readers order it).
constexpr std::uint16_t format_major = 1;
constexpr std::uint16_t format_minor = 1;

constexpr std::uint64_t page = 4096;
constexpr unsigned nr_slots = 2;
constexpr unsigned max_copies = 2;
// First byte of slot 0; the header's page comes before.
constexpr std::uint64_t header_area = page;
// From a slot's start to its data; the record's page comes before.
constexpr std::uint64_t data_offset = page;

using uuid = std::array<std::uint8_t, 16>;

// Offset 0 of each copy, 128 bytes.
struct header {
	std::uint64_t magic;	   // 0
	std::uint16_t major;	   // 8
	std::uint16_t minor;	   // 10
	std::uint32_t header_size; // 12: 128
	uuid id;		   // 16: the checkpoint's, the same in every copy
	std::uint32_t copy;	   // 32: this copy's index, 0 or 1
	std::uint32_t copies;	   // 36: 1 or 2
	std::uint64_t capacity;	   // 40: data bytes a slot holds
	std::uint32_t slots;	   // 48: 2
	std::uint32_t record_size; // 52: 64
	std::uint64_t slot_offset[ckpt::nr_slots]; // 56, 64: from the copy's start
	std::uint64_t data_offset; // 72: from a slot's start to its data
	std::uint64_t created_ns;  // 80: CLOCK_REALTIME
	std::uint8_t reserved[36]; // 88: zero
	std::uint32_t crc;	   // 124: CRC32C of bytes 0-123
};
static_assert(sizeof(header) == 128);
static_assert(offsetof(header, id) == 16 && offsetof(header, capacity) == 40);
static_assert(offsetof(header, slot_offset) == 56 && offsetof(header, crc) == 124);

// At each slot's start, one cache line.
struct alignas(64) record {
	std::uint64_t magic;	  // 0
	std::uint16_t major;	  // 8
	std::uint16_t minor;	  // 10
	std::uint32_t slot;	  // 12: this slot's index
	uuid id;		  // 16: the header's
	std::uint64_t generation; // 32: from 1
	std::uint64_t size;	  // 40: bytes of data
	std::uint64_t time_ns;	  // 48: when committed, CLOCK_REALTIME
	std::uint32_t data_crc;	  // 56: CRC32C of the @size bytes of data
	std::uint32_t crc;	  // 60: CRC32C of bytes 0-59
};
static_assert(sizeof(record) == 64);
static_assert(offsetof(record, generation) == 32 && offsetof(record, data_crc) == 56);

// Where a timeline branched off another: the last commit of that timeline its
// commits build on.
struct fork_point {
	std::uint64_t timeline;	  // 0
	std::uint64_t epoch;	  // 8
	std::uint64_t generation; // 16
	std::uint64_t commit;	  // 24
};
static_assert(sizeof(fork_point) == 32);

constexpr unsigned max_forks = 29;

// Right after the record (slot offset 64), written with it (format 1.1).  Commits
// form timelines: a timeline is a chain of commits by one committer, each built on
// the one before.  A committer that did not make the newest commit present (a new
// open, a restore) starts a new timeline of a higher epoch, so that what it
// commits wins over a copy that comes back with commits it never saw.
struct lineage {
	std::uint64_t magic;		 // 0: lineage_magic
	std::uint64_t commit;		 // 8: this commit's id (random), the same in every copy
	std::uint64_t timeline;		 // 16: its timeline's id (random)
	std::uint64_t epoch;		 // 24: its timeline's epoch, from 1
	std::uint64_t start_ns;		 // 32: when its timeline began, CLOCK_REALTIME
	std::uint64_t parent_generation; // 40: the commit it was built on, 0 none
	std::uint64_t parent_commit;	 // 48
	std::uint32_t nr_forks;		 // 56: entries of @forks used
	std::uint32_t record_crc;	 // 60: the record's crc: this lineage is that record's
	fork_point forks[max_forks];	 // 64: this timeline's fork point, then that one's, ...
	std::uint8_t reserved[28];	 // 992: zero
	std::uint32_t crc;		 // 1020: CRC32C of bytes 0-1019
};
static_assert(sizeof(lineage) == 1024);
static_assert(offsetof(lineage, forks) == 64 && offsetof(lineage, crc) == 1020);
// Slot offset of the lineage; record and lineage fit the record's page.
constexpr std::uint64_t lineage_offset = sizeof(record);
static_assert(lineage_offset + sizeof(lineage) <= data_offset);

// A commit as restore and commit see it: its generation and lineage (for a 1.0
// record, timeline 0, epoch 0, and its time as the commit id).
struct commit_ref {
	std::uint64_t generation = 0;
	lineage lin{};
};

// Lineage order: epoch, then the timeline's start, then its id, then generation.
// Two timelines of one epoch were started by committers that could not see each
// other's commits; the later one wins.
bool later(const commit_ref &a, const commit_ref &b) noexcept;
// @x is @w or one of its ancestors, as far as @w's forks tell.
bool descends(const commit_ref &w, const commit_ref &x) noexcept;

// Bytes of a copy (a persistent region) for @capacity bytes of data; 0 when
// @capacity is 0 or too large.
std::uint64_t copy_bytes(std::uint64_t capacity) noexcept;
// The largest capacity copy_bytes() takes.
std::uint64_t max_capacity() noexcept;

// One copy's memory; @base null when the copy is missing (@why says how).
struct copy_view {
	std::byte *base = nullptr;
	std::uint64_t len = 0;
	std::string label; // "region 'job@1'", for messages
	std::string why;   // when missing: "region 'job@1' does not exist"
};

// Values are the C ABI's enum cxltier_ckpt_copy_state.
enum class copy_state { ok = 0, stale = 1, bad = 2, missing = 3, newer_format = 4, diverged = 5 };

enum class slot_state {
	empty,	      // zero, or a record a crash left half written (checksum fails)
	valid,	      // a record of this format with its checksum right
	newer_format, // a record of a newer major format: not read, never overwritten
};

struct slot_scan {
	slot_state state = slot_state::empty;
	record rec{};
	commit_ref ref{}; // when valid
	std::string why;  // for a record that is neither zero nor valid
};

struct copy_scan {
	bool present = false;
	bool header_ok = false;	 // usable: our major, checksum right, consistent
	bool newer = false;	 // the header or a record has a newer major
	header hdr{};
	std::string why;	 // when not usable
	std::array<slot_scan, nr_slots> slots{};
	// The slot with the newest valid record (lineage order), -1 for none.
	int newest() const noexcept;
};

struct store_scan {
	std::vector<copy_scan> copies; // one per view
	uuid id{};
	std::uint64_t capacity = 0;
	unsigned nr_copies = 0; // as the headers say
	bool usable = false;	// at least one copy with a usable header
	bool newer = false;	// some copy has something of a newer format
	std::uint64_t max_generation = 0; // over valid records of every copy
	std::uint64_t max_epoch = 0;	  // likewise
	// The newest valid record of any copy (lineage order): what restore follows.
	std::optional<commit_ref> winner;
};

// Reads every header and record (not the data).  Copies whose uuid, copies or
// capacity differ from the first usable header are not usable.
store_scan scan(const std::vector<copy_view> &views);

// Writes the header of copy @copy (of @copies) and zero records, durably.
void format(const copy_view &view, const uuid &id, unsigned copy, unsigned copies,
	    std::uint64_t capacity, std::uint64_t now_ns, persist_ops &ops);

// A slot whose data was seen to match its record (by a commit or a restore).
struct good_slot {
	unsigned copy;
	unsigned slot;
	std::uint64_t generation;
	std::uint64_t commit;
};

// What a committer knows beyond the copies.
struct committer {
	// The commit the job's state was built on: what restore returned, or the last
	// commit; none after an open (the newest commit present is taken).
	std::optional<commit_ref> base;
	// @base is this committer's own last commit: its timeline goes on while @base
	// is still the newest commit present.
	bool own = false;
	// Saves reading a kept slot's data again to know that it verifies.
	std::vector<good_slot> verified;
};

// What a commit writes: per usable copy the slot to write, and the generation.
struct commit_plan {
	std::vector<unsigned> copies; // indexes into the views, the first is the primary
	std::array<unsigned, max_copies> target{};
	std::uint64_t generation = 0;
	std::uint64_t capacity = 0;
	commit_ref commit;	   // its lineage; start_ns set when written, if new_timeline
	bool new_timeline = false;
};

// The plan for the next commit; -EPROTONOSUPPORT when any copy has something of
// a newer format, -EIO when no copy can be written.  The target of a copy is never
// its newest slot (lineage order) whose data verifies: a newer record whose data
// fails its checksum is what gets written over.
result<commit_plan> plan(const std::vector<copy_view> &views, const store_scan &s,
			 const std::string &name, const committer &who = {});

// After a commit of @p that returned: the committer's base is that commit, and
// its slots verify.
void committed(committer &who, const commit_plan &p, std::uint64_t now_ns);

// Step 1: the target slots' records are made invalid, durably, so a crash while
// their data is written leaves empty slots, never one whose old record meets new
// data.  After it, staging() is where the primary copy's data goes.
void begin(const std::vector<copy_view> &views, const commit_plan &p, persist_ops &ops);
std::byte *staging(const std::vector<copy_view> &views, const commit_plan &p) noexcept;

// Steps 2 and 3 after begin(): the data of the other copies (copied from the
// primary's staging area) and of the primary are checksummed and written back,
// fence; then each copy's record of generation p.generation, written back, fence.
// Returns when the generation is durable in every copy of the plan.
void commit_staged(const std::vector<copy_view> &views, const commit_plan &p, std::uint64_t size,
		   std::uint64_t now_ns, persist_ops &ops);

// After begin(): @len bytes of @src to offset @off of every copy's data, written
// back (not fenced yet).
void write_all(const std::vector<copy_view> &views, const commit_plan &p, std::uint64_t off,
	       const void *src, std::size_t len, persist_ops &ops);

// Steps 2 and 3 when write_all() put all @size bytes in every copy and @crc is
// their checksum: fence, then the records.
void commit_written(const std::vector<copy_view> &views, const commit_plan &p,
		    std::uint64_t size, std::uint32_t crc, std::uint64_t now_ns,
		    persist_ops &ops);

// The same from @src (not in any copy): begin(), then @src copied to every copy.
void commit_from(const std::vector<copy_view> &views, const commit_plan &p, const void *src,
		 std::uint64_t size, std::uint64_t now_ns, persist_ops &ops);

struct copy_result {
	copy_state state = copy_state::missing;
	// The newest generation that verified there, 0 none; diverged: its newest.
	std::uint64_t generation = 0;
	std::string message; // why bad, missing, newer or diverged; "" otherwise
};

struct restore_result {
	std::uint64_t generation = 0; // 0: nothing committed verifies
	std::uint64_t size = 0;
	std::uint64_t time_ns = 0;
	int source = -1; // the copy read, -1 none
	bool newer = false;
	commit_ref commit; // the generation restored, when not 0
	std::vector<copy_result> copies;
	std::vector<good_slot> verified; // slots whose data was read and matched
	// The messages of bad, missing, newer and diverged copies, "; "-separated.
	std::string messages(const std::string &name) const;
};

// The newest generation whose data verifies in some copy, among the commits on the
// timeline of the newest record (lineage order: a copy holding commits of an
// abandoned timeline is diverged, never read), copied into @buf when
// @buf is not null and @bufsize holds it.  With @every, every copy's newest valid
// record is checked against its data, so each copy's state is known (verify);
// without, the data is read until one copy verifies (restore: one read of the
// state when nothing is wrong), and a copy not read gets its state from its
// records, as peek() gives it.  Never fails: a result with generation 0 says
// nothing verifies (see the copies for why).
restore_result restore(const std::vector<copy_view> &views, const store_scan &s, void *buf,
		       std::uint64_t bufsize, bool every = true);

// Records only (no data read): generation, size and time of the newest valid
// record, and states as restore() would give them if every data checksum held.
restore_result peek(const std::vector<copy_view> &views, const store_scan &s);

// After a restore (@as_base) or a verify: the slots that verified are remembered;
// a restore's generation becomes the committer's base (the next commit is built
// on it, on a timeline of its own).
void restored(committer &who, const restore_result &r, bool as_base);

// "ok", "stale", "bad", "missing", "newer-format", "diverged".
const char *copy_state_name(copy_state s) noexcept;

} // namespace cxltier::internal::ckpt
