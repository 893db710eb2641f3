// SPDX-License-Identifier: GPL-2.0
// The simulated device of sim.hpp.
#include "sim.hpp"

#include <algorithm>
#include <cerrno>

namespace sim {

namespace {

Host *H(void *ctx) { return static_cast<Host *>(ctx); }

int op_read(void *ctx, u64 off, void *buf, u32 len) { return H(ctx)->read(off, buf, len); }
void op_write(void *ctx, u64 off, const void *buf, u32 len) { H(ctx)->write(off, buf, len); }
void op_zero(void *ctx, u64 off, u64 len) { H(ctx)->zero(off, len); }
void op_wb(void *ctx, u64 off, u64 len) { H(ctx)->wb(off, len); }
void op_inval(void *ctx, u64 off, u64 len) { H(ctx)->inval(off, len); }
void op_fence(void *ctx) { H(ctx)->fence(); }
u64 op_now(void *ctx) { return H(ctx)->now_ms(); }
int op_relax(void *ctx) { return H(ctx)->relax(); }
int op_yield(void *ctx) { return H(ctx)->yield(); }
void op_nolock(void *) {}

const cxlt_pc_ops ops = {
	.read = op_read,
	.write = op_write,
	.zero = op_zero,
	.wb = op_wb,
	.inval = op_inval,
	.fence = op_fence,
	.now_ms = op_now,
	.relax = op_relax,
	.yield = op_yield,
	.lock = op_nolock,
	.unlock = op_nolock,
};

}  // namespace

Host::Host(Device &d, uint32_t id, uint32_t seed) : dev(d), rng(seed)
{
	pc.ops = &ops;
	pc.ctx = this;
	pc.id = id;
	for (size_t i = 0; i < sizeof(pc.uuid); i++)
		pc.uuid[i] = static_cast<u8>(rng());
	snprintf(pc.name, sizeof(pc.name), "host%u", id);
}

Line &Host::fill(uint64_t ln)
{
	auto it = cache.find(ln);
	if (it != cache.end())
		return it->second;
	Line l;
	// A line this host flushed and has not fenced yet: its own CPU reads it back.
	if (auto p = pending.find(ln); p != pending.end())
		l = p->second;
	else
		std::memcpy(l.data(), &dev.mem[ln * line_size], line_size);
	return cache.emplace(ln, l).first->second;
}

void Host::land(uint64_t ln, const Line &l)
{
	std::memcpy(&dev.mem[ln * line_size], l.data(), line_size);
}

int Host::read(uint64_t off, void *buf, uint32_t len)
{
	if (++reads == pause_at && on_pause)
		on_pause();
	auto *out = static_cast<uint8_t *>(buf);
	for (uint64_t ln = off / line_size; ln <= (off + len - 1) / line_size; ln++)
		if (!cache.count(ln) && dev.poisoned.count(ln))
			return -EIO;
	for (uint32_t i = 0; i < len;) {
		uint64_t ln = (off + i) / line_size, o = (off + i) % line_size;
		uint32_t n = std::min<uint64_t>(line_size - o, len - i);
		std::memcpy(out + i, fill(ln).data() + o, n);
		i += n;
	}
	return 0;
}

void Host::maybe_evict()
{
	if (evict_p <= 0 || std::uniform_real_distribution<>(0, 1)(rng) >= evict_p)
		return;
	// A dirty line evicted, or a line written back but not fenced landing early:
	// either may reach the device before lines stored or written back earlier.
	size_t n = dirty.size() + (evict_written_back ? pending.size() : 0);
	if (!n)
		return;
	size_t k = rng() % n;
	if (k < dirty.size()) {
		auto it = dirty.begin();
		std::advance(it, k);
		land(*it, cache[*it]);
		dirty.erase(it);
	} else {
		auto it = pending.begin();
		std::advance(it, k - dirty.size());
		land(it->first, it->second);
		pending.erase(it);
	}
}

void Host::write(uint64_t off, const void *buf, uint32_t len)
{
	if (++events == crash_at)
		throw Crash{};
	auto *in = static_cast<const uint8_t *>(buf);
	for (uint32_t i = 0; i < len;) {
		uint64_t ln = (off + i) / line_size, o = (off + i) % line_size;
		uint32_t n = std::min<uint64_t>(line_size - o, len - i);
		std::memcpy(fill(ln).data() + o, in + i, n);
		dirty.insert(ln);
		i += n;
	}
	maybe_evict();
}

int Host::yield()
{
	// The kernel's yield point between chunks: a natural place to be preempted.
	if (++yields == pause_yield_at && on_pause)
		on_pause();
	return 0;
}

void Host::zero(uint64_t off, uint64_t len)
{
	// One store (the core's chunk), line by line; a pause in it comes after its
	// lease check: the one window the lease cannot cover.
	if (++zeros == pause_zero_at && on_pause)
		on_pause();
	if (++events == crash_at)
		throw Crash{};
	for (uint64_t ln = off / line_size; ln <= (off + len - 1) / line_size; ln++) {
		fill(ln).fill(0);
		dirty.insert(ln);
	}
	maybe_evict();
}

void Host::store(uint64_t off, const void *buf, size_t len)
{
	write(off, buf, static_cast<uint32_t>(len));
}

void Host::load(uint64_t off, void *buf, size_t len)
{
	if (read(off, buf, static_cast<uint32_t>(len)))
		std::memset(buf, 0xee, len);
}

void Host::wb(uint64_t off, uint64_t len)
{
	for (uint64_t ln = off / line_size; ln <= (off + len - 1) / line_size; ln++) {
		if (!dirty.count(ln))
			continue;
		pending[ln] = cache[ln];
		dirty.erase(ln);
	}
}

void Host::inval(uint64_t off, uint64_t len)
{
	for (uint64_t ln = off / line_size; ln <= (off + len - 1) / line_size; ln++) {
		auto it = cache.find(ln);
		if (it == cache.end())
			continue;
		if (dirty.count(ln))
			pending[ln] = it->second;	// written back, done at the fence
		dirty.erase(ln);
		cache.erase(it);
	}
}

void Host::fence()
{
	if (++fences == pause_fence_at && on_pause)
		on_pause();
	// A crash here: what was written back is not known to have landed.
	if (++events == crash_at)
		throw Crash{};
	for (auto &[ln, l] : pending)
		land(ln, l);
	pending.clear();
}

int Host::relax()
{
	dev.now++;
	if (on_relax)
		on_relax();
	return 0;
}

void Host::evict_all()
{
	std::vector<uint64_t> d(dirty.begin(), dirty.end());
	std::shuffle(d.begin(), d.end(), rng);
	for (auto ln : d)
		land(ln, cache[ln]);
	dirty.clear();
}

void Host::crash()
{
	// Lines written back but not fenced, and dirty ones: each lands or not, in any order.
	std::vector<std::pair<uint64_t, Line>> maybe(pending.begin(), pending.end());
	for (auto ln : dirty)
		maybe.emplace_back(ln, cache[ln]);
	std::shuffle(maybe.begin(), maybe.end(), rng);
	for (auto &[ln, l] : maybe)
		if (rng() & 1)
			land(ln, l);
	reboot();
}

}  // namespace sim
