/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxltier placement policy core.
 *
 * DOC: Placement policy
 *
 * The core decides which pages of the global regions live on the fast tier
 * (DRAM) and which on the slow tier (CXL).  It is plain C without kernel or
 * libc calls: the module compiles it in, and the host unit tests and the trace
 * simulator (bench/) link the very same file.
 *
 * Time is counted in periods; the caller (the migration daemon) chooses how
 * long one period is.  Once per period the caller
 *
 *  1. reports the pages found accessed during the period with
 *     cxlt_policy_record_access() (for example the pages whose accessed bit
 *     it found set and cleared),
 *  2. calls cxlt_policy_end_period() to age the heat and rank the pages,
 *  3. calls cxlt_policy_select() for at most one budget of pages to demote
 *     and to promote,
 *  4. migrates them, demotions first, and reports every outcome, success or
 *     failure, with cxlt_policy_migrated().
 *
 * Pages are numbered 0 .. npages - 1 by the caller.  The core keeps 6 bytes
 * per page (struct cxlt_page in policy.c) plus a fixed header, in memory the
 * caller provides: it never allocates.  The core is not reentrant; the caller
 * serialises all calls on one state.
 *
 * See Documentation/design.rst for the method and the numbers behind it.
 */
#ifndef CXLT_POLICY_H
#define CXLT_POLICY_H

#include "cxlt_compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum cxlt_tier_class - where a page lives
 * @CXLT_TIER_NONE: not populated (or freed); the policy ignores the page
 * @CXLT_TIER_FAST: on the fast tier (DRAM)
 * @CXLT_TIER_SLOW: on the slow tier (CXL)
 */
enum cxlt_tier_class {
	CXLT_TIER_NONE = 0,
	CXLT_TIER_FAST = 1,
	CXLT_TIER_SLOW = 2,
};

/**
 * enum cxlt_hint - what an application said about a page; overrides heat
 * @CXLT_HINT_NONE: heat decides
 * @CXLT_HINT_HOT: promote ahead of heat (evicting the coldest unhinted fast
 *	page if there is no room); never demoted
 * @CXLT_HINT_COLD: demote ahead of heat, never promote
 * @CXLT_HINT_PIN: never migrate; stays on the tier it is on
 */
enum cxlt_hint {
	CXLT_HINT_NONE = 0,
	CXLT_HINT_HOT = 1,
	CXLT_HINT_COLD = 2,
	CXLT_HINT_PIN = 3,
};

/**
 * struct cxlt_policy_params - tunables, all integers, units in the comments
 * @fast_pages: pages of the fast tier the policy may fill (pages)
 * @wmark_low: when fewer fast pages than this are free, demote the coldest
 *	pages until @wmark_high are free (pages)
 * @wmark_high: promotions leave this many fast pages free, for new
 *	allocations (pages)
 * @budget: at most this many pages are migrated per period in each
 *	direction (pages per period); 0 stops all migration
 * @decay_shift: heat loses 1/2^@decay_shift of itself every period, so it
 *	averages over about 2^@decay_shift periods (1..8)
 * @idle_bits: change test of the fast tier: a run of idle periods is taken
 *	as a fall of the page's rate only if chance gives it a probability of
 *	2^-@idle_bits or less, at the rate the run started from, and then only
 *	as part of a set of falls that chance explains at most 1/@idle_fdr of;
 *	the heat of those pages is replaced by the run's own estimate (bits;
 *	0 disables, 1..30)
 * @burst_bits: the same for runs of sampled periods on the slow tier (rises
 *	of rate); a slow page found so is promoted first, without the
 *	confidence test (bits; 0 disables, 1..30)
 * @confidence: a slow page replaces a fast one only when its heat is higher
 *	by this many quarter standard deviations of the sampling noise, after
 *	discounting by the skew of the workload, than the fast page's and
 *	than the hot threshold (quarter sigmas; 0 accepts any difference)
 * @hyst_steps: ...and only when the slow page's heat is more than this many
 *	histogram steps above the fast page's (steps of 1/8 octave, about 9%)
 * @min_resid: after a migration, or a failed attempt, heat does not move the
 *	page again for this many periods (periods)
 * @idle_fdr: the falls acted on in a period are at least this many times
 *	those chance gives: at most 1/@idle_fdr of them are false alarms
 *	(1..255)
 * @burst_fdr: the same for rises (1..255)
 */
struct cxlt_policy_params {
	u32 fast_pages;
	u32 wmark_low;
	u32 wmark_high;
	u32 budget;
	u8 decay_shift;
	u8 idle_bits;
	u8 burst_bits;
	u8 confidence;
	u8 hyst_steps;
	u8 min_resid;
	u8 idle_fdr;
	u8 burst_fdr;
};

/**
 * struct cxlt_policy_plan - one period's migrations, filled by
 *	cxlt_policy_select()
 * @promote: (in) caller's array for pages to move to the fast tier
 * @promote_max: (in) entries available in @promote
 * @demote: (in) caller's array for pages to move to the slow tier
 * @demote_max: (in) entries available in @demote
 * @nr_promote: (out) entries written to @promote
 * @nr_demote: (out) entries written to @demote
 *
 * The lists are sets, in no particular order.  Migrate the demotions first:
 * the promotions may need the room they free.
 */
struct cxlt_policy_plan {
	u32 *promote;
	u32 promote_max;
	u32 *demote;
	u32 demote_max;
	u32 nr_promote;
	u32 nr_demote;
};

/**
 * struct cxlt_policy_stats - counters, for debugfs and the simulator
 * @periods: periods ended
 * @promoted: successful promotions reported
 * @demoted: successful demotions reported
 * @failed: failed migrations reported
 * @nr_fast: pages on the fast tier
 * @nr_slow: pages on the slow tier
 * @hot_heat: heat from which a page belongs on the fast tier (lower bound
 *	of the hot threshold's histogram step)
 * @promote_candidates: slow pages at or above the hot threshold
 * @changes: heats replaced by the change test, since init (@rises +
 *	@falls)
 * @skew: share of the variance of heat that is not sampling noise, in
 *	1/256 (0: no page is reliably hotter than another)
 * @fall_cut: surprise from which the last period took idle runs of fast
 *	pages as falls (bits; 32: none)
 * @rise_cut: the same for sampled runs of slow pages (bits; 32: none)
 * @rises: heats of slow pages raised by the change test, since init
 * @falls: heats of fast pages lowered by the change test, since init
 */
struct cxlt_policy_stats {
	u64 periods;
	u64 promoted;
	u64 demoted;
	u64 failed;
	u32 nr_fast;
	u32 nr_slow;
	u32 hot_heat;
	u32 promote_candidates;
	u64 changes;
	u32 skew;
	u32 fall_cut;
	u32 rise_cut;
	u64 rises;
	u64 falls;
};

/**
 * struct cxlt_page_info - one page as the policy sees it
 * @tier: enum cxlt_tier_class
 * @hint: enum cxlt_hint
 * @heat: decayed access score, 0..65535; one sample every period settles
 *	near 32768
 * @run: >0: sampled in each of the last @run periods; <0: idle in each of
 *	the last -@run periods
 * @resid: periods since the last migration or attempt (saturates at 255)
 */
struct cxlt_page_info {
	u8 tier;
	u8 hint;
	u16 heat;
	s8 run;
	u8 resid;
};

struct cxlt_policy;

size_t cxlt_policy_size(u32 npages);
int cxlt_policy_default_params(struct cxlt_policy_params *params, u32 npages,
			       u32 fast_pages);
int cxlt_policy_init(struct cxlt_policy **out, void *mem, size_t size,
		     u32 npages, const struct cxlt_policy_params *params);
int cxlt_policy_set_params(struct cxlt_policy *pol,
			   const struct cxlt_policy_params *params);
int cxlt_policy_get_params(const struct cxlt_policy *pol,
			   struct cxlt_policy_params *params);
int cxlt_policy_set_tier(struct cxlt_policy *pol, u32 page,
			 enum cxlt_tier_class tier);
int cxlt_policy_set_hint(struct cxlt_policy *pol, u32 page,
			 enum cxlt_hint hint);
int cxlt_policy_record_access(struct cxlt_policy *pol, u32 page, u32 count);
int cxlt_policy_end_period(struct cxlt_policy *pol);
int cxlt_policy_select(struct cxlt_policy *pol, struct cxlt_policy_plan *plan);
int cxlt_policy_migrated(struct cxlt_policy *pol, u32 page,
			 enum cxlt_tier_class tier, int result);
int cxlt_policy_get_page(const struct cxlt_policy *pol, u32 page,
			 struct cxlt_page_info *info);
int cxlt_policy_get_stats(const struct cxlt_policy *pol,
			  struct cxlt_policy_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* CXLT_POLICY_H */
