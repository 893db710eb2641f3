// SPDX-License-Identifier: GPL-2.0
// Checkpoint commit and restore on byte ranges.  The crash argument, step by step
// (Documentation/persistence.rst, "Commit protocol"):
//  - A commit never writes the slot holding a copy's newest generation that
//    verifies on the commit's timeline, nor any header, so the last committed
//    generation stays readable whatever happens.
//  - begin: the target slots' records become zero and that is made durable before
//    any of their data changes.  A crash before the fence leaves each such record
//    old, zero, or a mix of both, which fails its checksum: the slot reads empty.
//  - data: written back and fenced before any record names it.  A crash meanwhile
//    leaves the target records zero: empty slots.
//  - records: a crash before the last fence leaves each copy's new record and
//    lineage either whole (its data is durable already) or one of them failing its
//    checksum (empty: the lineage names its record's crc).  So a
//    copy holds the new generation or the one before, and restore takes the
//    newest generation any copy verifies.
// A valid record whose data fails its checksum can therefore not come from a
// crash: it is reported as a bad copy.
#include "ckpt_core.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <tuple>

#include <sys/random.h>

#include "crc32c.hpp"

namespace cxltier::internal::ckpt {

namespace {

// Data moves in chunks: checksummed and copied while in the cache, written back
// right after.
constexpr std::uint64_t chunk = 1 << 20;

std::uint64_t round_page(std::uint64_t n)
{
	return (n + page - 1) / page * page;
}

std::uint64_t slot_stride(std::uint64_t capacity)
{
	return data_offset + round_page(capacity);
}

std::uint32_t header_crc(const header &h)
{
	return crc32c(0, &h, offsetof(header, crc));
}

std::uint32_t record_crc(const record &r)
{
	return crc32c(0, &r, offsetof(record, crc));
}

std::uint32_t lineage_crc(const lineage &l)
{
	return crc32c(0, &l, offsetof(lineage, crc));
}

// Commit and timeline ids: random, so that two committers that cannot see each
// other never pick the same one.
std::uint64_t new_id()
{
	std::uint64_t v = 0;
	while (!v) {
		if (::getrandom(&v, sizeof(v), 0) != static_cast<ssize_t>(sizeof(v))) {
			// No thread_local engine: its 2.5 KiB of TLS would not fit the static
			// TLS left to a library that is dlopen()ed (a Slurm plugin links us).
			std::random_device rd;
			v = static_cast<std::uint64_t>(rd()) << 32 | rd();
		}
	}
	return v;
}

bool all_zero(const void *p, std::size_t n)
{
	auto *b = static_cast<const unsigned char *>(p);
	return std::all_of(b, b + n, [](unsigned char c) { return c == 0; });
}

std::string hex32(std::uint32_t v)
{
	char buf[16];
	std::snprintf(buf, sizeof(buf), "0x%08x", v);
	return buf;
}

std::string version(std::uint16_t major, std::uint16_t minor)
{
	return std::to_string(major) + "." + std::to_string(minor);
}

std::byte *slot_base(const copy_view &v, const header &h, unsigned slot)
{
	return v.base + h.slot_offset[slot];
}

// The header of @v checked on its own: "" when usable, else why not.
std::string check_header(const copy_view &v, copy_scan &c)
{
	if (v.len < sizeof(header))
		return "too small for a checkpoint header (" + std::to_string(v.len) + " bytes)";
	std::memcpy(&c.hdr, v.base, sizeof(header));
	const header &h = c.hdr;
	if (h.magic != header_magic) {
		if (all_zero(&h, sizeof(h)))
			return "no checkpoint header (its creation did not finish: drop the "
			       "checkpoint and create it again)";
		return "not a checkpoint (no header magic)";
	}
	if (h.major > format_major) {
		c.newer = true;
		return "format " + version(h.major, h.minor) + " is newer than this library's " +
		       version(format_major, format_minor) + ": update libcxltier";
	}
	if (h.major != format_major)
		return "unknown format " + version(h.major, h.minor);
	if (h.crc != header_crc(h))
		return "header checksum " + hex32(h.crc) + " does not match its contents (" +
		       hex32(header_crc(h)) + ")";
	if (h.header_size != sizeof(header) || h.slots != nr_slots ||
	    h.record_size != sizeof(record) || h.data_offset != data_offset ||
	    (h.copies != 1 && h.copies != 2) || h.copy >= h.copies || !h.capacity ||
	    h.capacity > max_capacity())
		return "header fields are inconsistent";
	std::uint64_t stride = slot_stride(h.capacity);
	for (unsigned s = 0; s < nr_slots; s++)
		if (h.slot_offset[s] != header_area + s * stride)
			return "header's slot offsets are inconsistent";
	if (copy_bytes(h.capacity) > v.len)
		return "header says " + std::to_string(copy_bytes(h.capacity)) +
		       " bytes, the region has " + std::to_string(v.len);
	return "";
}

void scan_slot(const copy_view &v, const header &h, unsigned s, slot_scan &out)
{
	std::memcpy(&out.rec, slot_base(v, h, s), sizeof(record));
	const record &r = out.rec;
	out.state = slot_state::empty;
	if (all_zero(&r, sizeof(r)))
		return;
	if (r.magic == record_magic && r.major > format_major) {
		out.state = slot_state::newer_format;
		out.why = "slot " + std::to_string(s) + " has a record of format " +
			  version(r.major, r.minor) + ", newer than this library's " +
			  version(format_major, format_minor);
		return;
	}
	// A record a crash cut short: not an error, the slot is simply empty.
	if (r.magic != record_magic || r.major != format_major || r.crc != record_crc(r)) {
		out.why = "slot " + std::to_string(s) + ": incomplete record (a commit was cut short)";
		return;
	}
	if (r.slot != s || r.id != h.id || !r.generation || r.size > h.capacity) {
		out.why = "slot " + std::to_string(s) + ": record does not belong here";
		return;
	}
	out.ref = commit_ref{};
	out.ref.generation = r.generation;
	if (r.minor == 0) {
		// Format 1.0: no lineage.  Its commits are timeline 0, epoch 0, older than
		// any of 1.1; its time (the same in every copy) names the commit.
		out.ref.lin.commit = r.time_ns;
	} else {
		lineage &l = out.ref.lin;
		std::memcpy(&l, slot_base(v, h, s) + lineage_offset, sizeof(l));
		// Written with the record before one fence: a crash can keep one of the
		// two.  Either way the commit did not finish and the slot is empty.
		if (l.magic != lineage_magic || l.crc != lineage_crc(l) || l.record_crc != r.crc ||
		    l.nr_forks > max_forks || !l.epoch || !l.commit) {
			out.why = "slot " + std::to_string(s) +
				  ": incomplete lineage (a commit was cut short)";
			return;
		}
	}
	out.state = slot_state::valid;
}

struct candidate {
	unsigned copy;
	unsigned slot;
	const commit_ref *ref;
};

// The data of slot @s of a copy checksummed, copied to @out when not null.
bool data_verifies(const copy_view &v, const copy_scan &c, unsigned s, void *out,
		   std::string &why)
{
	const record &r = c.slots[s].rec;
	const std::byte *data = slot_base(v, c.hdr, s) + data_offset;
	std::uint32_t crc = 0;
	for (std::uint64_t off = 0; off < r.size; off += chunk) {
		std::size_t n = static_cast<std::size_t>(std::min(chunk, r.size - off));
		if (out) {
			std::memcpy(static_cast<std::byte *>(out) + off, data + off, n);
			crc = crc32c(crc, static_cast<std::byte *>(out) + off, n);
		} else {
			crc = crc32c(crc, data + off, n);
		}
	}
	if (crc == r.data_crc)
		return true;
	why = "slot " + std::to_string(s) + " (generation " + std::to_string(r.generation) +
	      "): data checksum " + hex32(crc) + " does not match the record's " + hex32(r.data_crc);
	return false;
}

// Valid slots of @c, newest first in lineage order.
std::vector<unsigned> slots_newest_first(const copy_scan &c)
{
	std::vector<unsigned> out;
	for (unsigned s = 0; s < nr_slots; s++)
		if (c.slots[s].state == slot_state::valid)
			out.push_back(s);
	std::sort(out.begin(), out.end(),
		  [&](unsigned a, unsigned b) { return later(c.slots[a].ref, c.slots[b].ref); });
	return out;
}

bool same_commit(const commit_ref &a, const commit_ref &b)
{
	return a.generation == b.generation && a.lin.commit == b.lin.commit &&
	       a.lin.timeline == b.lin.timeline;
}

void remember(std::vector<good_slot> &known, const good_slot &g)
{
	std::erase_if(known, [&](const good_slot &k) { return k.copy == g.copy && k.slot == g.slot; });
	known.push_back(g);
}

bool known_good(const std::vector<good_slot> &known, unsigned copy, unsigned slot,
		const commit_ref &ref)
{
	return std::any_of(known.begin(), known.end(), [&](const good_slot &k) {
		return k.copy == copy && k.slot == slot && k.generation == ref.generation &&
		       k.commit == ref.lin.commit;
	});
}

} // namespace

bool later(const commit_ref &a, const commit_ref &b) noexcept
{
	return std::tie(a.lin.epoch, a.lin.start_ns, a.lin.timeline, a.generation) >
	       std::tie(b.lin.epoch, b.lin.start_ns, b.lin.timeline, b.generation);
}

bool descends(const commit_ref &w, const commit_ref &x) noexcept
{
	// A timeline is one committer's chain, each commit built on the one before.
	auto upto = [&](std::uint64_t gen, std::uint64_t commit) {
		return x.generation < gen || (x.generation == gen && x.lin.commit == commit);
	};
	if (x.lin.timeline == w.lin.timeline)
		return upto(w.generation, w.lin.commit);
	for (std::uint32_t i = 0; i < std::min(w.lin.nr_forks, max_forks); i++)
		if (w.lin.forks[i].timeline == x.lin.timeline)
			return upto(w.lin.forks[i].generation, w.lin.forks[i].commit);
	// Not among the forks @w remembers: not provably an ancestor.
	return false;
}

std::uint64_t max_capacity() noexcept
{
	// Both slots and the header within 2^48 bytes, what a region may have.
	return (std::uint64_t{1} << 47) - 4 * page;
}

std::uint64_t copy_bytes(std::uint64_t capacity) noexcept
{
	if (!capacity || capacity > max_capacity())
		return 0;
	return header_area + nr_slots * slot_stride(capacity);
}

int copy_scan::newest() const noexcept
{
	int best = -1;
	for (unsigned s = 0; s < nr_slots; s++)
		if (slots[s].state == slot_state::valid &&
		    (best < 0 || later(slots[s].ref, slots[best].ref)))
			best = static_cast<int>(s);
	return best;
}

store_scan scan(const std::vector<copy_view> &views)
{
	store_scan s;
	s.copies.resize(views.size());
	const header *ref = nullptr;
	for (std::size_t i = 0; i < views.size(); i++) {
		const copy_view &v = views[i];
		copy_scan &c = s.copies[i];
		c.present = v.base != nullptr;
		if (!c.present) {
			c.why = v.why;
			continue;
		}
		c.why = check_header(v, c);
		if (c.why.empty() && c.hdr.copy != i)
			c.why = "header says copy " + std::to_string(c.hdr.copy) + ", the region is copy " +
				std::to_string(i);
		if (c.why.empty() && ref &&
		    (c.hdr.id != ref->id || c.hdr.copies != ref->copies ||
		     c.hdr.capacity != ref->capacity))
			c.why = "belongs to another checkpoint (its uuid, copies or capacity differ)";
		if (!c.why.empty())
			continue;
		c.header_ok = true;
		if (!ref)
			ref = &c.hdr;
		for (unsigned k = 0; k < nr_slots; k++) {
			scan_slot(v, c.hdr, k, c.slots[k]);
			if (c.slots[k].state == slot_state::newer_format)
				c.newer = true;
			const slot_scan &sl = c.slots[k];
			if (sl.state != slot_state::valid)
				continue;
			s.max_generation = std::max(s.max_generation, sl.rec.generation);
			s.max_epoch = std::max(s.max_epoch, sl.ref.lin.epoch);
			if (!s.winner || later(sl.ref, *s.winner))
				s.winner = sl.ref;
		}
	}
	for (const auto &c : s.copies)
		s.newer |= c.newer;
	if (ref) {
		s.usable = true;
		s.id = ref->id;
		s.capacity = ref->capacity;
		s.nr_copies = ref->copies;
	}
	return s;
}

void format(const copy_view &v, const uuid &id, unsigned copy, unsigned copies,
	    std::uint64_t capacity, std::uint64_t now_ns, persist_ops &ops)
{
	header h{};
	h.magic = header_magic;
	h.major = format_major;
	h.minor = format_minor;
	h.header_size = sizeof(header);
	h.id = id;
	h.copy = copy;
	h.copies = copies;
	h.capacity = capacity;
	h.slots = nr_slots;
	h.record_size = sizeof(record);
	for (unsigned s = 0; s < nr_slots; s++)
		h.slot_offset[s] = header_area + s * slot_stride(capacity);
	h.data_offset = data_offset;
	h.created_ns = now_ns;
	h.crc = header_crc(h);
	// The records first: a region is created zeroed, but say so durably anyway
	// before the header makes the copy look like a checkpoint.
	for (unsigned s = 0; s < nr_slots; s++) {
		std::memset(v.base + h.slot_offset[s], 0, sizeof(record));
		ops.flush(v.base + h.slot_offset[s], sizeof(record));
	}
	ops.fence();
	std::memcpy(v.base, &h, sizeof(h));
	ops.flush(v.base, sizeof(h));
	ops.fence();
}

result<commit_plan> plan(const std::vector<copy_view> &views, const store_scan &s,
			 const std::string &name, const committer &who)
{
	if (s.newer) {
		for (std::size_t i = 0; i < s.copies.size(); i++)
			if (s.copies[i].newer)
				return error{-EPROTONOSUPPORT,
					     "checkpoint '" + name + "': " + views[i].label + " holds " +
						     (s.copies[i].header_ok ? "a slot" : "a header") +
						     " of a newer format; this library does not write over it "
						     "(update libcxltier)"};
	}
	commit_plan p;
	p.capacity = s.capacity;
	// The job's state was built on its base; without one (a fresh open) on the
	// newest commit present.
	const commit_ref *parent = who.base ? &*who.base : s.winner ? &*s.winner : nullptr;
	p.generation = std::max(s.max_generation, parent ? parent->generation : 0) + 1;
	lineage &l = p.commit.lin;
	l.magic = lineage_magic;
	l.commit = new_id();
	if (parent) {
		l.parent_generation = parent->generation;
		l.parent_commit = parent->lin.commit;
	}
	// The committer's own timeline goes on only while its last commit is the
	// newest present: else a commit it did not see (of another committer, or on a
	// copy that came back) could sit on the same timeline with another parent.
	if (who.own && who.base && s.winner && same_commit(*s.winner, *who.base)) {
		l.timeline = parent->lin.timeline;
		l.epoch = parent->lin.epoch;
		l.start_ns = parent->lin.start_ns;
		l.nr_forks = parent->lin.nr_forks;
		std::copy(std::begin(parent->lin.forks), std::end(parent->lin.forks), l.forks);
	} else {
		p.new_timeline = true;
		l.timeline = new_id();
		l.epoch = std::max(s.max_epoch, parent ? parent->lin.epoch : 0) + 1;
		if (parent) {
			l.forks[0] = {parent->lin.timeline, parent->lin.epoch, parent->generation,
				      parent->lin.commit};
			std::uint32_t keep = std::min(parent->lin.nr_forks, max_forks - 1);
			std::copy(parent->lin.forks, parent->lin.forks + keep, l.forks + 1);
			l.nr_forks = keep + 1;
		}
	}
	p.commit.generation = p.generation;

	for (std::size_t i = 0; i < s.copies.size(); i++) {
		const copy_scan &c = s.copies[i];
		if (!c.header_ok)
			continue;
		// Keep the newest slot (lineage order) whose data verifies: the other one,
		// a newer record whose data fails or an older generation, is written over,
		// so a crash during this commit leaves the last good generation in place.
		std::vector<unsigned> order = slots_newest_first(c);
		int keep = -1;
		for (unsigned sl : order) {
			std::string why;
			if (known_good(who.verified, static_cast<unsigned>(i), sl, c.slots[sl].ref) ||
			    data_verifies(views[i], c, sl, nullptr, why)) {
				keep = static_cast<int>(sl);
				break;
			}
		}
		if (keep >= 0) {
			p.target[i] = 1 - static_cast<unsigned>(keep);
		} else {
			// Nothing verifies here: an empty slot, else the older record.
			p.target[i] = c.slots[0].state != slot_state::valid ? 0
				    : c.slots[1].state != slot_state::valid ? 1
				    : order.empty()			     ? 0
									     : order.back();
		}
		p.copies.push_back(static_cast<unsigned>(i));
	}
	if (p.copies.empty())
		return error{-EIO, "checkpoint '" + name + "': no copy can be written (" +
					   s.copies.front().why + ")"};
	return p;
}

void committed(committer &who, const commit_plan &p, std::uint64_t now_ns)
{
	commit_ref c = p.commit;
	if (p.new_timeline)
		c.lin.start_ns = now_ns;
	who.base = c;
	who.own = true;
	for (unsigned i : p.copies)
		remember(who.verified, {i, p.target[i], c.generation, c.lin.commit});
}

void begin(const std::vector<copy_view> &views, const commit_plan &p, persist_ops &ops)
{
	for (unsigned i : p.copies) {
		const copy_view &v = views[i];
		auto *h = reinterpret_cast<const header *>(v.base);
		std::byte *rec = v.base + h->slot_offset[p.target[i]];
		std::memset(rec, 0, sizeof(record));
		ops.flush(rec, sizeof(record));
	}
	ops.fence();
}

std::byte *staging(const std::vector<copy_view> &views, const commit_plan &p) noexcept
{
	unsigned i = p.copies.front();
	auto *h = reinterpret_cast<const header *>(views[i].base);
	return views[i].base + h->slot_offset[p.target[i]] + data_offset;
}

namespace {

std::byte *data_of(const std::vector<copy_view> &views, const commit_plan &p, unsigned i)
{
	auto *h = reinterpret_cast<const header *>(views[i].base);
	return views[i].base + h->slot_offset[p.target[i]] + data_offset;
}

// Step 3: every copy's record, then one fence.
void write_records(const std::vector<copy_view> &views, const commit_plan &p, std::uint64_t size,
		   std::uint32_t data_crc, std::uint64_t now_ns, persist_ops &ops)
{
	for (unsigned i : p.copies) {
		auto *h = reinterpret_cast<const header *>(views[i].base);
		record r{};
		r.magic = record_magic;
		r.major = format_major;
		r.minor = format_minor;
		r.slot = p.target[i];
		r.id = h->id;
		r.generation = p.generation;
		r.size = size;
		r.time_ns = now_ns;
		r.data_crc = data_crc;
		r.crc = record_crc(r);
		lineage l = p.commit.lin;
		if (p.new_timeline)
			l.start_ns = now_ns;
		l.record_crc = r.crc;
		l.crc = lineage_crc(l);
		std::byte *dst = views[i].base + h->slot_offset[p.target[i]];
		std::memcpy(dst, &r, sizeof(r));
		std::memcpy(dst + lineage_offset, &l, sizeof(l));
		ops.flush(dst, lineage_offset + sizeof(l));
	}
	ops.fence();
}

} // namespace

void commit_staged(const std::vector<copy_view> &views, const commit_plan &p, std::uint64_t size,
		   std::uint64_t now_ns, persist_ops &ops)
{
	const std::byte *primary = data_of(views, p, p.copies.front());
	std::uint32_t crc = 0;
	for (std::uint64_t off = 0; off < size; off += chunk) {
		std::size_t n = static_cast<std::size_t>(std::min(chunk, size - off));
		crc = crc32c(crc, primary + off, n);
		for (std::size_t k = 1; k < p.copies.size(); k++) {
			std::byte *dst = data_of(views, p, p.copies[k]) + off;
			std::memcpy(dst, primary + off, n);
			ops.flush(dst, n);
		}
		ops.flush(primary + off, n);
	}
	ops.fence();
	write_records(views, p, size, crc, now_ns, ops);
}

void write_all(const std::vector<copy_view> &views, const commit_plan &p, std::uint64_t off,
	       const void *src, std::size_t len, persist_ops &ops)
{
	for (unsigned i : p.copies) {
		std::byte *dst = data_of(views, p, i) + off;
		std::memcpy(dst, src, len);
		ops.flush(dst, len);
	}
}

void commit_written(const std::vector<copy_view> &views, const commit_plan &p,
		    std::uint64_t size, std::uint32_t crc, std::uint64_t now_ns,
		    persist_ops &ops)
{
	ops.fence();
	write_records(views, p, size, crc, now_ns, ops);
}

void commit_from(const std::vector<copy_view> &views, const commit_plan &p, const void *src,
		 std::uint64_t size, std::uint64_t now_ns, persist_ops &ops)
{
	begin(views, p, ops);
	auto *in = static_cast<const std::byte *>(src);
	std::uint32_t crc = 0;
	for (std::uint64_t off = 0; off < size; off += chunk) {
		std::size_t n = static_cast<std::size_t>(std::min(chunk, size - off));
		crc = crc32c(crc, in + off, n);
		for (unsigned i : p.copies) {
			std::byte *dst = data_of(views, p, i) + off;
			std::memcpy(dst, in + off, n);
			ops.flush(dst, n);
		}
	}
	ops.fence();
	write_records(views, p, size, crc, now_ns, ops);
}

namespace {

// Per copy: candidates newest first, each verified (and copied out when @out).
struct copy_check {
	int verified_slot = -1;	// the newest slot whose data verified (or is assumed to)
	bool corrupt = false;	// a newer valid record's data did not verify
	std::string corrupt_why;
};

std::string epoch_text(const commit_ref &c)
{
	return "generation " + std::to_string(c.generation) + " (epoch " +
	       std::to_string(c.lin.epoch) + ")";
}

// The states once every copy's newest verifying generation is known.
void settle(const store_scan &s, const std::vector<copy_check> &checks, restore_result &r)
{
	r.copies.resize(s.copies.size());
	for (std::size_t i = 0; i < s.copies.size(); i++) {
		const copy_scan &c = s.copies[i];
		copy_result &cr = r.copies[i];
		if (!c.present) {
			cr.state = copy_state::missing;
			cr.message = c.why;
			continue;
		}
		if (c.newer) {
			cr.state = copy_state::newer_format;
			cr.message = c.why;
			for (const auto &sl : c.slots)
				if (sl.state == slot_state::newer_format)
					cr.message = sl.why;
			r.newer = true;
			if (!c.header_ok)
				continue;
		}
		if (!c.header_ok) {
			cr.state = copy_state::bad;
			cr.message = c.why;
			continue;
		}
		const copy_check &k = checks[i];
		if (k.verified_slot >= 0)
			cr.generation = c.slots[k.verified_slot].rec.generation;
		if (c.newer)
			continue;
		int n = c.newest();
		if (n >= 0 && s.winner && !descends(*s.winner, c.slots[n].ref)) {
			const commit_ref &mine = c.slots[n].ref, &w = *s.winner;
			cr.state = copy_state::diverged;
			cr.generation = mine.generation;
			cr.message = "its newest commit, " + epoch_text(mine) +
				     ", is not on the timeline of " + epoch_text(w) +
				     " (committed without it, after a restore or open that did not see "
				     "it): not restored; the next commit rewrites this copy";
		} else if (k.corrupt) {
			cr.state = copy_state::bad;
			cr.message = k.corrupt_why;
		} else if (k.verified_slot >= 0 && r.generation &&
			   same_commit(c.slots[k.verified_slot].ref, r.commit)) {
			cr.state = copy_state::ok;
		} else {
			cr.state = copy_state::stale;
		}
	}
}

} // namespace

std::string restore_result::messages(const std::string &name) const
{
	std::string out;
	for (std::size_t i = 0; i < copies.size(); i++) {
		const copy_result &c = copies[i];
		if (c.state != copy_state::bad && c.state != copy_state::missing &&
		    c.state != copy_state::newer_format && c.state != copy_state::diverged)
			continue;
		if (!out.empty())
			out += "; ";
		out += "checkpoint '" + name + "' copy " + std::to_string(i) + " " +
		       copy_state_name(c.state) + ": " + c.message;
	}
	if (!out.empty() && source >= 0)
		out += "; generation " + std::to_string(generation) + " read from copy " +
		       std::to_string(source);
	return out;
}

restore_result restore(const std::vector<copy_view> &views, const store_scan &s, void *buf,
		       std::uint64_t bufsize, bool every)
{
	restore_result r;
	std::vector<copy_check> checks(s.copies.size());

	// Every copy's slots on the newest record's timeline, newest first, until one
	// verifies (every one: @every).  Others belong to abandoned timelines.
	std::vector<candidate> candidates;
	for (std::size_t i = 0; i < s.copies.size() && s.winner; i++) {
		const copy_scan &c = s.copies[i];
		if (!c.header_ok)
			continue;
		for (unsigned sl : slots_newest_first(c))
			if (descends(*s.winner, c.slots[sl].ref))
				candidates.push_back({static_cast<unsigned>(i), sl, &c.slots[sl].ref});
	}
	std::stable_sort(candidates.begin(), candidates.end(),
			 [](const candidate &a, const candidate &b) { return later(*a.ref, *b.ref); });
	bool found = false;
	for (const candidate &cand : candidates) {
		copy_check &k = checks[cand.copy];
		if (found && !every) {
			// Not read: what its records say, as peek() does.
			if (k.verified_slot < 0 && !k.corrupt)
				k.verified_slot = static_cast<int>(cand.slot);
			continue;
		}
		if (k.verified_slot >= 0)
			continue; // this copy's newest good one is known
		const copy_scan &c = s.copies[cand.copy];
		const record &rec = c.slots[cand.slot].rec;
		// The first to verify is the one restored: read it into @buf on the way.
		bool fits = buf && rec.size <= bufsize;
		std::string why;
		if (data_verifies(views[cand.copy], c, cand.slot, !found && fits ? buf : nullptr,
				  why)) {
			k.verified_slot = static_cast<int>(cand.slot);
			r.verified.push_back(
				{cand.copy, cand.slot, rec.generation, cand.ref->lin.commit});
			if (!found) {
				found = true;
				r.generation = rec.generation;
				r.size = rec.size;
				r.time_ns = rec.time_ns;
				r.commit = *cand.ref;
				// Too big for @buf: reported, not read (source -1).
				if (!buf || fits)
					r.source = static_cast<int>(cand.copy);
			}
		} else if (!k.corrupt) {
			k.corrupt = true;
			k.corrupt_why = why;
		}
	}
	settle(s, checks, r);
	return r;
}

restore_result peek(const std::vector<copy_view> &, const store_scan &s)
{
	restore_result r;
	std::vector<copy_check> checks(s.copies.size());
	for (std::size_t i = 0; i < s.copies.size(); i++) {
		const copy_scan &c = s.copies[i];
		if (!c.header_ok)
			continue;
		int n = c.newest();
		if (n < 0)
			continue;
		checks[i].verified_slot = n;
		const commit_ref &ref = c.slots[n].ref;
		if (r.source < 0 && s.winner && same_commit(ref, *s.winner)) {
			const record &rec = c.slots[n].rec;
			r.generation = rec.generation;
			r.size = rec.size;
			r.time_ns = rec.time_ns;
			r.commit = ref;
			r.source = static_cast<int>(i);
		}
	}
	settle(s, checks, r);
	return r;
}

void restored(committer &who, const restore_result &r, bool as_base)
{
	for (const good_slot &g : r.verified)
		remember(who.verified, g);
	if (as_base && r.generation && r.source >= 0) {
		who.base = r.commit;
		who.own = false;
	}
}

const char *copy_state_name(copy_state s) noexcept
{
	switch (s) {
	case copy_state::ok:
		return "ok";
	case copy_state::stale:
		return "stale";
	case copy_state::bad:
		return "bad";
	case copy_state::missing:
		return "missing";
	case copy_state::newer_format:
		return "newer-format";
	case copy_state::diverged:
		return "diverged";
	}
	return "unknown";
}

} // namespace cxltier::internal::ckpt
