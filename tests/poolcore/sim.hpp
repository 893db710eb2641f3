// SPDX-License-Identifier: GPL-2.0
//
// A simulated shared CXL device that is harder than the rig: every host has its own
// cache.  A store stays in the host's cache (dirty) until written back; a write-back
// (CLWB) is done only at the next fence; another host sees a line only after its
// own invalidate (its cached copy stays as it was); a dirty line may be evicted to
// the device at any time; at a crash each unflushed line is lost or lands, in any
// order.  Time is virtual: a host's relax() moves it, and a test moves it for
// pauses.  A host may also not see time pass (a VM stopped with its clock).
// The pool core (kmod/poolcore/) runs over it unchanged.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <vector>

extern "C" {
#include "cxlt_pc.h"
}

namespace sim {

constexpr uint64_t line_size = 64;
using Line = std::array<uint8_t, line_size>;

struct Device {
	explicit Device(uint64_t size) : mem(size, 0) {}
	std::vector<uint8_t> mem;
	uint64_t now = 1000;		// ms, the real time
	std::set<uint64_t> poisoned;	// line numbers
};

// Thrown by a host's store that hits its crash point: the host stops there.
struct Crash {};

class Host {
public:
	Host(Device &dev, uint32_t id, uint32_t seed = 1);
	Host(const Host &) = delete;
	Host &operator=(const Host &) = delete;

	Device &dev;
	cxlt_pc pc{};
	std::mt19937 rng;

	// Fault injection.  Counted per host.
	long events = 0, crash_at = -1;		// crash before event (store or fence) number crash_at
	long reads = 0, pause_at = -1;		// call on_pause before read number pause_at
	long fences = 0, pause_fence_at = -1;	// ... or before fence number pause_fence_at
	long zeros = 0, pause_zero_at = -1;	// ... or inside zeroing chunk pause_zero_at
	long yields = 0, pause_yield_at = -1;	// ... or at yield number pause_yield_at (between
						// zeroing chunks, before the next one's check)
	std::function<void()> on_pause;		// runs other hosts while this one is stopped
	std::function<void()> on_relax;		// runs at each relax (after time moved)
	uint64_t clock_lag = 0;			// time this host did not see pass (VM stopped)
	double evict_p = 0;			// chance that a store lands a random dirty or
						// written-back line early
	bool evict_written_back = true;		// false: dirty lines only

	// A process's loads and stores through a mapping of the region memory.
	void store(uint64_t off, const void *buf, size_t len);
	void load(uint64_t off, void *buf, size_t len);
	// Write back every dirty line at random moments: an eviction storm.
	void evict_all();
	// Power is cut / the host dies: unflushed lines land or not, at random.
	void crash();
	// A new boot of the same host: empty cache.
	void reboot() { cache.clear(); dirty.clear(); pending.clear(); }

	// The ops' bodies.
	int read(uint64_t off, void *buf, uint32_t len);
	void write(uint64_t off, const void *buf, uint32_t len);
	void zero(uint64_t off, uint64_t len);
	void wb(uint64_t off, uint64_t len);
	void inval(uint64_t off, uint64_t len);
	void fence();
	uint64_t now_ms() { return dev.now - clock_lag; }
	int relax();
	int yield();

private:
	Line &fill(uint64_t ln);
	void land(uint64_t ln, const Line &l);
	void maybe_evict();
	std::map<uint64_t, Line> cache;
	std::set<uint64_t> dirty;
	std::map<uint64_t, Line> pending;	// written back, not yet fenced
};

}  // namespace sim
