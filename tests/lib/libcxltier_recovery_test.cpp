// SPDX-License-Identifier: GPL-2.0
// The SIGBUS handler of cxltier_fence_handler_install(), without a kernel module:
// regions are mapped through the fake /dev/cxltier of fake_dev.c (linked in, so
// that its ioctl() answers FENCED and REPLACE on region files), and the faults are
// SIGBUS sent to the test's own thread with rt_tgsigqueueinfo(), which lets a
// process give itself any si_code and si_addr.  The signal is taken before the
// sending call returns, so each test sees the handler's work right after it.
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cxltier.h"
#include "cxltier.hpp"
#include "daemon_fake_sys.hpp"

using namespace cxltier_test;

namespace {

constexpr std::uint64_t page = 4096;

// What the callback saw: copies, as the event's strings live only during the call.
struct seen {
	int calls = 0;
	std::uint32_t region_id = 0;
	std::string region;
	std::uint64_t offset = 0;
	void *addr = nullptr;
	std::string blade;
	std::uint64_t time_ns = 0;
	cxltier_event_cause cause = CXLTIER_EVENT_CAUSE_UNKNOWN;
	int si_code = 0;
	cxltier_fence_action answer = CXLTIER_FENCE_RETRY_REPLACE;
};

// Not async-signal-safe (std::string), which is fine here: the signals come from
// the test's own calls, never in the middle of an allocation.
cxltier_fence_action record(const cxltier_fence_event *ev, void *arg)
{
	auto *s = static_cast<seen *>(arg);
	s->calls++;
	s->region_id = ev->region_id;
	s->region = ev->region;
	s->offset = ev->offset;
	s->addr = ev->addr;
	s->blade = ev->blade;
	s->time_ns = ev->time_ns;
	s->cause = ev->cause;
	s->si_code = ev->si_code;
	return s->answer;
}

// The program's own SIGBUS handlers, installed before the library's.
int previous_calls = 0;
int previous_code = 0;
void *previous_addr = nullptr;

void previous_siginfo(int, siginfo_t *si, void *)
{
	previous_calls++;
	previous_code = si->si_code;
	previous_addr = si->si_addr;
}

int plain_sig = 0;

void previous_plain(int sig)
{
	previous_calls++;
	plain_sig = sig;
}

// SIGBUS with @code at @addr to this thread, taken before the call returns.
void send_sigbus(int code, void *addr)
{
	siginfo_t si;
	std::memset(&si, 0, sizeof(si));
	si.si_signo = SIGBUS;
	si.si_code = code;
	si.si_addr = addr;
	ASSERT_EQ(::syscall(SYS_rt_tgsigqueueinfo, ::getpid(), ::syscall(SYS_gettid), SIGBUS, &si), 0)
		<< std::strerror(errno);
}

void set_action(void (*h)(int), int flags = 0)
{
	struct sigaction sa = {};
	sa.sa_handler = h;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(::sigaction(SIGBUS, &sa, nullptr), 0);
}

void set_siginfo_action(void (*h)(int, siginfo_t *, void *))
{
	struct sigaction sa = {};
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(::sigaction(SIGBUS, &sa, nullptr), 0);
}

class RecoveryTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		ASSERT_EQ(::sigaction(SIGBUS, nullptr, &saved_), 0);
		previous_calls = 0;
		previous_code = 0;
		previous_addr = nullptr;
		plain_sig = 0;
		// kv: page 5 fenced on mem1 by poison; ro: the same, opened read-only.
		dev.set_regions({
			"1 kv 16777216 0 0600 rw fenced_at=5,6 fence_blade=mem1 fence_cause=3 "
			"fence_time=1767225600123456789",
			"2 ro 16777216 0 0644 r fenced_at=0 fence_blade=mem2 fence_cause=1 fence_time=1",
		});
		int err = 0;
		ctx = cxltier::make_ctx(err);
		ASSERT_TRUE(ctx) << cxltier_get_last_error(nullptr);
	}

	void TearDown() override
	{
		cxltier_fence_handler_remove();
		::sigaction(SIGBUS, &saved_, nullptr);
	}

	// Region @name open with @access and mapped; its address in @base.
	cxltier::region_ptr map(const char *name, int access, char **base)
	{
		int err = 0;
		auto r = cxltier::open_region(ctx.get(), name, access, err);
		EXPECT_TRUE(r) << cxltier_get_last_error(ctx.get());
		void *p = nullptr;
		if (r) {
			EXPECT_EQ(cxltier_region_map(r.get(), &p), 0) << cxltier_get_last_error(ctx.get());
		}
		*base = static_cast<char *>(p);
		return r;
	}

	struct sigaction saved_;
	fake_sysfs sysfs;
	fake_dev dev;
	scoped_env sysfs_env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env dev_env{CXLTIER_DEV_ENV, dev.dev().string()};
	cxltier::ctx_ptr ctx;
	seen s;
};

} // namespace

// A fault on a fenced page reaches the callback with the region, the offset, the
// blade, when and why; on RETRY_REPLACE the library replaces that page and returns.
TEST_F(RecoveryTest, CallbackGetsTheRegionOffsetAndBladeAndThePageIsReplaced)
{
	set_siginfo_action(previous_siginfo);
	char *base;
	auto r = map("kv", CXLTIER_REGION_RDWR, &base);
	ASSERT_TRUE(base);
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);

	send_sigbus(BUS_MCEERR_AR, base + 5 * page + 123);
	EXPECT_EQ(s.calls, 1);
	EXPECT_EQ(s.region_id, 1u);
	EXPECT_EQ(s.region, "kv");
	EXPECT_EQ(s.offset, 5 * page + 123);
	EXPECT_EQ(s.addr, base + 5 * page + 123);
	EXPECT_EQ(s.blade, "mem1");
	EXPECT_EQ(s.time_ns, 1767225600123456789u);
	EXPECT_EQ(s.cause, CXLTIER_EVENT_CAUSE_POISON);
	EXPECT_EQ(s.si_code, BUS_MCEERR_AR);
	EXPECT_EQ(dev.replaced(), "kv 20480 4096\n") << "the faulting page, whole";
	EXPECT_EQ(previous_calls, 0);

	// Reported ahead of an access (action optional): the same.
	send_sigbus(BUS_MCEERR_AO, base + 6 * page);
	EXPECT_EQ(s.calls, 2);
	EXPECT_EQ(s.offset, 6 * page);
	EXPECT_EQ(s.si_code, BUS_MCEERR_AO);
	EXPECT_EQ(dev.replaced(), "kv 20480 4096\nkv 24576 4096\n");
}

// DEFAULT passes the fault on to the handler the program had installed before.
TEST_F(RecoveryTest, DefaultGoesToThePreviousHandler)
{
	set_siginfo_action(previous_siginfo);
	char *base;
	auto r = map("kv", CXLTIER_REGION_RDWR, &base);
	s.answer = CXLTIER_FENCE_DEFAULT;
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	send_sigbus(BUS_MCEERR_AR, base + 5 * page);
	EXPECT_EQ(s.calls, 1);
	EXPECT_EQ(previous_calls, 1);
	EXPECT_EQ(previous_code, BUS_MCEERR_AR);
	EXPECT_EQ(previous_addr, base + 5 * page);
	EXPECT_EQ(dev.replaced(), "") << "nothing replaced";
}

// SIGBUS that is not about a mapped region goes to the previous handler untouched,
// and the callback never hears of it.
TEST_F(RecoveryTest, FaultsThatAreNotOursAreChained)
{
	set_siginfo_action(previous_siginfo);
	char *base;
	auto r = map("kv", CXLTIER_REGION_RDWR, &base);
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);

	int local = 0;
	send_sigbus(BUS_MCEERR_AR, &local);
	EXPECT_EQ(previous_calls, 1);
	EXPECT_EQ(previous_addr, &local);
	send_sigbus(BUS_MCEERR_AR, base + 16 * 1024 * 1024);
	EXPECT_EQ(previous_calls, 2) << "one past the end is not in the mapping";
	send_sigbus(BUS_ADRERR, base + 5 * page);
	EXPECT_EQ(previous_calls, 3) << "another si_code in the mapping";
	EXPECT_EQ(previous_code, BUS_ADRERR);
	EXPECT_EQ(s.calls, 0);

	// Once unmapped, the region is forgotten.
	ASSERT_EQ(cxltier_region_unmap(r.get()), 0);
	send_sigbus(BUS_MCEERR_AR, base + 5 * page);
	EXPECT_EQ(previous_calls, 4);
	EXPECT_EQ(s.calls, 0);
}

// A previous handler without SA_SIGINFO is called with the signal number.
TEST_F(RecoveryTest, PlainPreviousHandler)
{
	set_action(previous_plain);
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	int local = 0;
	send_sigbus(BUS_MCEERR_AR, &local);
	EXPECT_EQ(previous_calls, 1);
	EXPECT_EQ(plain_sig, SIGBUS);
}

// With the default action before it, a fault that is not ours kills the process
// with SIGBUS, as it would have without the library.
TEST_F(RecoveryTest, DefaultActionStillKills)
{
	GTEST_FLAG_SET(death_test_style, "threadsafe");
	EXPECT_EXIT(
		{
			set_action(SIG_DFL);
			cxltier_fence_handler_install(record, &s);
			int local = 0;
			send_sigbus(BUS_MCEERR_AR, &local);
			std::_Exit(0);
		},
		::testing::KilledBySignal(SIGBUS), "");
	// Also when the callback answers DEFAULT for a fault in a region.
	EXPECT_EXIT(
		{
			set_action(SIG_DFL);
			char *base;
			auto r = map("kv", CXLTIER_REGION_RDWR, &base);
			s.answer = CXLTIER_FENCE_DEFAULT;
			cxltier_fence_handler_install(record, &s);
			send_sigbus(BUS_MCEERR_AR, base + 5 * page);
			std::_Exit(0);
		},
		::testing::KilledBySignal(SIGBUS), "");
}

// SIG_IGN before: a signal someone sent is ignored.
TEST_F(RecoveryTest, IgnoredWhenSent)
{
	set_action(SIG_IGN);
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	int local = 0;
	send_sigbus(SI_QUEUE, &local);
	SUCCEED() << "still alive";
}

// SIG_IGN before: a fault is not ignored (the kernel would not let it be either).
TEST_F(RecoveryTest, FaultIsNotIgnored)
{
	GTEST_FLAG_SET(death_test_style, "threadsafe");
	EXPECT_EXIT(
		{
			set_action(SIG_IGN);
			cxltier_fence_handler_install(record, &s);
			int here = 0;
			send_sigbus(BUS_MCEERR_AR, &here);
			std::_Exit(0);
		},
		::testing::KilledBySignal(SIGBUS), "");
}

// Remove puts back exactly the previous action; it refuses to when it is not
// installed, or when another handler was installed over it.
TEST_F(RecoveryTest, RemoveRestoresThePreviousAction)
{
	set_siginfo_action(previous_siginfo);
	EXPECT_EQ(cxltier_fence_handler_remove(), -ENOENT);
	EXPECT_EQ(cxltier_fence_handler_install(nullptr, nullptr), -EINVAL);
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	struct sigaction now;
	ASSERT_EQ(::sigaction(SIGBUS, nullptr, &now), 0);
	EXPECT_NE(now.sa_sigaction, previous_siginfo);
	EXPECT_TRUE(now.sa_flags & SA_SIGINFO);
	EXPECT_TRUE(now.sa_flags & SA_ONSTACK);
	EXPECT_TRUE(now.sa_flags & SA_NODEFER);

	ASSERT_EQ(cxltier_fence_handler_remove(), 0);
	ASSERT_EQ(::sigaction(SIGBUS, nullptr, &now), 0);
	EXPECT_EQ(now.sa_sigaction, previous_siginfo);
	EXPECT_EQ(now.sa_flags & (SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART | SA_RESETHAND),
		  SA_SIGINFO);
	EXPECT_EQ(cxltier_fence_handler_remove(), -ENOENT);

	// Someone else's handler over ours stays.
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	set_action(previous_plain);
	EXPECT_EQ(cxltier_fence_handler_remove(), -EBUSY);
	ASSERT_EQ(::sigaction(SIGBUS, nullptr, &now), 0);
	EXPECT_EQ(now.sa_handler, previous_plain);
}

// Installing again changes the callback and its argument only.
TEST_F(RecoveryTest, InstallAgainChangesTheCallback)
{
	set_siginfo_action(previous_siginfo);
	char *base;
	auto r = map("kv", CXLTIER_REGION_RDWR, &base);
	seen other;
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	ASSERT_EQ(cxltier_fence_handler_install(record, &other), 0);
	send_sigbus(BUS_MCEERR_AR, base + 5 * page);
	EXPECT_EQ(s.calls, 0);
	EXPECT_EQ(other.calls, 1);
	ASSERT_EQ(cxltier_fence_handler_remove(), 0);
	struct sigaction now;
	ASSERT_EQ(::sigaction(SIGBUS, nullptr, &now), 0);
	EXPECT_EQ(now.sa_sigaction, previous_siginfo) << "the action before the first install";
}

// Regions mapped before the install are covered as well as those mapped after.
TEST_F(RecoveryTest, RegionsMappedBeforeAndAfter)
{
	set_siginfo_action(previous_siginfo);
	char *kv, *ro;
	auto r1 = map("kv", CXLTIER_REGION_RDWR, &kv);
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	auto r2 = map("ro", CXLTIER_REGION_READ, &ro);
	s.answer = CXLTIER_FENCE_DEFAULT;
	send_sigbus(BUS_MCEERR_AR, ro + 100);
	EXPECT_EQ(s.calls, 1);
	EXPECT_EQ(s.region, "ro");
	EXPECT_EQ(s.blade, "mem2");
	EXPECT_EQ(s.cause, CXLTIER_EVENT_CAUSE_ADMIN);
	send_sigbus(BUS_MCEERR_AR, kv + 5 * page);
	EXPECT_EQ(s.calls, 2);
	EXPECT_EQ(s.region, "kv");
}

// A page that cannot be replaced (the region is open read-only) is not retried:
// the fault goes to the previous action instead of coming back for ever.
TEST_F(RecoveryTest, FailedReplaceIsChained)
{
	set_siginfo_action(previous_siginfo);
	char *ro;
	auto r = map("ro", CXLTIER_REGION_READ, &ro);
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	send_sigbus(BUS_MCEERR_AR, ro);
	EXPECT_EQ(s.calls, 1);
	EXPECT_EQ(previous_calls, 1);
	EXPECT_EQ(dev.replaced(), "");
}

// A page the module no longer reports fenced (another thread replaced it since)
// is retried once without the callback; a second fault there is chained.
TEST_F(RecoveryTest, PageNoLongerFencedIsRetriedOnce)
{
	set_siginfo_action(previous_siginfo);
	char *base;
	auto r = map("kv", CXLTIER_REGION_RDWR, &base);
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	send_sigbus(BUS_MCEERR_AR, base + 9 * page);
	EXPECT_EQ(s.calls, 0);
	EXPECT_EQ(previous_calls, 0);
	send_sigbus(BUS_MCEERR_AR, base + 9 * page);
	EXPECT_EQ(s.calls, 0);
	EXPECT_EQ(previous_calls, 1);
}

// A module that cannot say why (no FENCED) still gets the callback, with what is
// known; a replacement it cannot do either goes to the previous action.
TEST_F(RecoveryTest, OlderModule)
{
	set_siginfo_action(previous_siginfo);
	char *base;
	auto r = map("kv", CXLTIER_REGION_RDWR, &base);
	dev.make_old();
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	send_sigbus(BUS_MCEERR_AR, base + 3 * page + 8);
	EXPECT_EQ(s.calls, 1);
	EXPECT_EQ(s.region, "kv");
	EXPECT_EQ(s.offset, 3 * page + 8);
	EXPECT_EQ(s.blade, "");
	EXPECT_EQ(s.time_ns, 0u);
	EXPECT_EQ(s.cause, CXLTIER_EVENT_CAUSE_UNKNOWN);
	EXPECT_EQ(previous_calls, 1);
}

// errno is as the interrupted code left it.
TEST_F(RecoveryTest, ErrnoIsKept)
{
	set_siginfo_action(previous_siginfo);
	char *base;
	auto r = map("ro", CXLTIER_REGION_READ, &base);
	ASSERT_EQ(cxltier_fence_handler_install(record, &s), 0);
	errno = 0;
	siginfo_t si;
	std::memset(&si, 0, sizeof(si));
	si.si_signo = SIGBUS;
	si.si_code = BUS_MCEERR_AR;
	si.si_addr = base;
	errno = 1234;
	::syscall(SYS_rt_tgsigqueueinfo, ::getpid(), ::syscall(SYS_gettid), SIGBUS, &si);
	EXPECT_EQ(errno, 1234);
	EXPECT_EQ(s.calls, 1);
}
