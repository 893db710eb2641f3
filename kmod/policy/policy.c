// SPDX-License-Identifier: GPL-2.0
/*
 * cxltier placement policy core: heat, ranking and selection.
 *
 * DOC: Method
 *
 * Heat.  Every page has a 16-bit heat, an exponential moving average of its
 * samples: a sample adds 2^(15 - decay_shift), every period takes
 * 1/2^decay_shift away.  A page sampled in a fraction q of the periods settles
 * near q * 32768 (q times the "full" heat), so heat reads as "sampled in q of
 * the periods".  Until the average has seen about 2^decay_shift periods the
 * full heat is lower; the noise model below tracks it.
 *
 * Noise model.  With one sample per period at most (an accessed bit), the
 * heat of a page is an average of Bernoulli(q) draws, whose variance follows
 * from the heat itself: h (full - h) / D, where D grows with the age of the
 * average up to 2^(decay_shift + 1) - 1.  Two tests use it.
 *
 * Change test.  A long average is stable but slow to follow a change;
 * ARMS switches to a short one when the two disagree.  One signed byte does
 * that job here: the run of consecutive sampled (or idle) periods.  The
 * surprise of a run is -log2 of its probability at the rate the page had when
 * the run started (its heat then, undone from the heat now): k idle periods
 * at rate q have probability (1 - q)^k, k sampled ones q^k.  A change only
 * matters where it would move a page: a rise on the slow tier, a fall on the
 * fast one, so each tier is tested in its own direction.
 *
 * Chance gives surprising runs too: a page of rate q reaches b bits of
 * surprise with probability 2^-(p ceil(b / p)) <= 2^-b, p the surprise of one
 * period at q.  Summed over the pages this is the number of false alarms to
 * expect at b bits, E(b), and each period the cut is the lowest b at which
 * the pages found are at least idle_fdr (falls) or burst_fdr (rises) times
 * E(b): the share of false alarms among the changes acted on stays below
 * 1/fdr (Benjamini-Hochberg).  A phase change, where many pages change at
 * once, is acted on after one or two periods; a few pages drifting in and
 * out of the hot set are acted on once their own runs are long enough; under
 * stationary access there is no cut at all.  To keep a noisy heat from
 * passing for a change, the rates are first shrunk towards the mean by the
 * skew (below): under uniform access every page is judged at the mean rate.
 *
 * A page found changed gets the heat of what its run says alone: full -
 * (full >> k) after k sampled periods; full >> (k + 2) after k idle ones.
 * A slow page whose heat rose so is "jumped": it is promoted ahead of the
 * other candidates and without the confidence test (the change test stood
 * for it), until it is idle for a period.
 *
 * The period in which a page is placed (cxlt_policy_set_tier() from
 * CXLT_TIER_NONE) does not count as a sample: its accessed bit is the access
 * that placed it, which says nothing about which pages will be hot.
 *
 * Ranking.  As in Memtis, a histogram of heat (8 steps per octave) sized
 * against the fast tier gives the hot threshold: the step where the fast
 * tier runs out of room.  Only slow pages at or above it are promoted, and
 * only fast pages at or below it are demoted for them.
 *
 * Selection.  Promotions fill free room first.  Beyond that each promotion
 * needs a demotion: the hottest slow candidates are paired with the coldest
 * fast pages, and a pair is exchanged only when the heat difference,
 * discounted by the skew of the whole population, exceeds the noise of the
 * difference by the confidence margin, and the candidate passes the same test
 * against the threshold: the coldest fast page and the hottest slow page are
 * extremes of many noisy heats, and the threshold keeps the second from
 * chasing the first.  The skew is the share of the variance of heat over all
 * pages that the noise model does not explain (an empirical Bayes
 * shrinkage): near 1 under a skewed workload, near 0 under uniform access,
 * where every difference of heat is noise and no pair is worth moving.
 * Hysteresis steps and a minimum residency after each migration keep pages
 * from bouncing.
 */
#include "cxlt_policy.h"

/* Histogram steps: 8 exact ones for heat 0..7, then 8 per octave to 65535. */
#define CXLT_NBINS		112
#define CXLT_HEAT_MAX		0xffffU
/* A sample adds 2^(CXLT_HEAT_SHIFT - decay_shift). */
#define CXLT_HEAT_SHIFT		15
#define CXLT_RUN_MAX		127
#define CXLT_RESID_MAX		255
/* Ages beyond this do not change the noise model (by 2^-5 at decay 8). */
#define CXLT_AGE_MAX		2048
/* Runs longer than this are undone as if this long (the lower surprise). */
#define CXLT_INV_MAX		16
/* Surprise of a run, in 1/8 bits, saturates here (31.9 bits). */
#define CXLT_SURPRISE_MAX	255
/* Steps of whole bits of surprise; a cut here means no change is found. */
#define CXLT_CUT_NEVER		32
/* A change test acts only on at least this many pages at once. */
#define CXLT_CHANGE_MIN		8
/*
 * Selection takes pages of equal heat in the order it visits them: blocks of
 * this many pages, in an order that jumps over the table, so that a sequential
 * pattern of access does not decide which of equal pages move.
 */
#define CXLT_BLOCK		64
/* Loops over every page let other work run once every 65536 pages. */
#define CXLT_YIELD_MASK		0xffffu
/* An idle run of k periods estimates the heat as full >> (k + this). */
#define CXLT_FALL_EXTRA		2
/* 1.0 in the 16.16 fixed point of the noise model. */
#define CXLT_FP_ONE		65536ULL

/* Page flags: tier in bits 0-1, hint in bits 2-3. */
#define CXLT_PF_TIER_MASK	0x03
#define CXLT_PF_HINT_SHIFT	2
#define CXLT_PF_HINT_MASK	0x0c
/* Sampled during the current period. */
#define CXLT_PF_TOUCHED		0x10
/* The last migration attempt failed: hints wait out min_resid as well. */
#define CXLT_PF_BACKOFF		0x20
/* Slow page whose heat the change test raised, sampled since: "jumped". */
#define CXLT_PF_JUMP		0x40
/* Placed this period: its sample is the placing access and does not count. */
#define CXLT_PF_FRESH		0x80

/**
 * struct cxlt_page - what the policy keeps per page: 6 bytes
 * @heat: decayed sample score (see DOC: Method)
 * @flags: CXLT_PF_*
 * @run: >0 consecutive sampled periods, <0 consecutive idle periods
 * @resid: periods since the last migration or attempt, saturating
 * @bin: histogram step of @heat at the last end of period; selection uses
 *	it so that it picks exactly the pages the histograms counted (between
 *	the two passes of cxlt_policy_end_period(), the run's surprise)
 */
struct cxlt_page {
	u16 heat;
	u8 flags;
	s8 run;
	u8 resid;
	u8 bin;
};

/**
 * struct cxlt_policy - the state, in caller-provided memory
 * @npages: pages tracked
 * @params: tunables in force
 * @ainv: (1 - 2^-decay_shift)^-k for k = 0..CXLT_INV_MAX (16.16): undoes k
 *	periods of decay, to find the heat a run started from
 * @age: periods since init, up to CXLT_AGE_MAX
 * @mean_fp: expected heat of an always-sampled page / sample weight (16.16)
 * @var_fp: the matching variance factor (16.16)
 * @full: heat of a page sampled in every period since init
 * @noise_div: D of the noise model: var(heat) = h (@full - h) / D
 * @one: heat of one pseudo-sample, @full / @noise_div (at least 1)
 * @log_total: 8 log2(@full + 2 @one), to 1/8
 * @nr_fast: pages on the fast tier
 * @nr_slow: pages on the slow tier
 * @rotor: page where the next selection scan starts, so that partial
 *	histogram steps are taken fairly over the page range
 * @nblocks: blocks of CXLT_BLOCK pages in the table
 * @stride: the selection scan visits blocks @stride apart, modulo @nblocks
 *	(coprime with it, so that every block is visited)
 * @hot_bin: hot threshold (histogram step) of the last period
 * @skew: share of the variance of heat that is not noise, in 1/256
 * @mean_rate: mean heat of the ranked pages over @full, in 1/65536: their
 *	mean rate, which stays right while @full still grows
 * @n_hot_slow: HOT-hinted slow pages that may move
 * @n_cold_fast: COLD-hinted fast pages that may move
 * @n_fast_elig: unhinted fast pages that heat may move
 * @selected: the current period's selection is made
 * @stats: counters reported by cxlt_policy_get_stats()
 * @hist_slow: unhinted slow pages heat may move, by step
 * @hist_fast: unhinted fast pages heat may move, by step
 * @hist_jump: jumped slow pages heat may move, by step (not in @hist_slow)
 * @surp: pages of each tier by the surprise of their run in the direction
 *	tested there, in whole bits ([0] falls of fast pages, [1] rises of
 *	slow pages)
 * @rate: the same pages by the step of heat at which they are tested (their
 *	heat when the run started, or now): the false alarms to expect
 * @per: surprise of one period at the middle of each step of heat, in 1/8
 *	bits, for this period ([0] idle, [1] sampled)
 * @pages: per-page records
 */
struct cxlt_policy {
	u32 npages;
	struct cxlt_policy_params params;
	u64 ainv[CXLT_INV_MAX + 1];
	u32 age;
	u64 mean_fp;
	u64 var_fp;
	u32 full;
	u32 noise_div;
	u32 one;
	u32 log_total;
	u32 nr_fast;
	u32 nr_slow;
	u32 rotor;
	u32 nblocks;
	u32 stride;
	u32 hot_bin;
	u32 skew;
	u32 mean_rate;
	u32 n_hot_slow;
	u32 n_cold_fast;
	u32 n_fast_elig;
	bool selected;
	struct cxlt_policy_stats stats;
	u32 hist_slow[CXLT_NBINS];
	u32 hist_fast[CXLT_NBINS];
	u32 hist_jump[CXLT_NBINS];
	u32 surp[2][CXLT_CUT_NEVER];
	u32 rate[2][CXLT_NBINS];
	u8 per[2][CXLT_NBINS];
	struct cxlt_page pages[];
};

static u32 cxlt_min(u32 a, u32 b)
{
	return a < b ? a : b;
}

/* floor(log2(h)) for 1 <= h <= 0xffffffff */
static u32 cxlt_log2(u32 h)
{
	return 31 - __builtin_clz(h);
}

/* 8 log2(v), to 1/8, for v >= 1 */
static u32 cxlt_log2_8(u32 v)
{
	u32 e = cxlt_log2(v);

	if (e >= 3)
		return (e << 3) | ((v >> (e - 3)) & 7);
	return (e << 3) | ((v << (3 - e)) & 7);
}

/* a / b for b != 0, by shift and subtract: no 64-bit division helper. */
static u64 cxlt_div64(u64 a, u64 b)
{
	u64 q = 0, r = 0;
	int i;

	for (i = 63; i >= 0; i--) {
		r = (r << 1) | ((a >> i) & 1);
		if (r >= b) {
			r -= b;
			q |= 1ULL << i;
		}
	}
	return q;
}

static u32 cxlt_gcd(u32 a, u32 b)
{
	while (b) {
		u32 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static u32 cxlt_heat_bin(u32 h)
{
	u32 e;

	if (h < 8)
		return h;
	e = cxlt_log2(h);
	return ((e - 2) << 3) | ((h >> (e - 3)) & 7);
}

/* Lowest heat in step @b. */
static u32 cxlt_bin_floor(u32 b)
{
	if (b < 8)
		return b;
	return (8 | (b & 7)) << ((b >> 3) - 1);
}

/* Highest heat in step @b. */
static u32 cxlt_bin_ceil(u32 b)
{
	if (b + 1 >= CXLT_NBINS)
		return CXLT_HEAT_MAX;
	return cxlt_bin_floor(b + 1) - 1;
}

static u32 cxlt_page_tier(const struct cxlt_page *pg)
{
	return pg->flags & CXLT_PF_TIER_MASK;
}

static u32 cxlt_page_hint(const struct cxlt_page *pg)
{
	return (pg->flags & CXLT_PF_HINT_MASK) >> CXLT_PF_HINT_SHIFT;
}

static bool cxlt_params_valid(const struct cxlt_policy_params *params)
{
	if (!params)
		return false;
	if (params->wmark_low > params->wmark_high ||
	    params->wmark_high > params->fast_pages)
		return false;
	if (params->decay_shift < 1 || params->decay_shift > 8)
		return false;
	if (params->idle_bits > 30 || params->burst_bits > 30)
		return false;
	if (params->hyst_steps >= CXLT_NBINS)
		return false;
	if (!params->idle_fdr || !params->burst_fdr)
		return false;
	return true;
}

/*
 * After k periods an average that started at 0 has mean w q M_k and variance
 * w^2 q (1 - q) V_k, with M_k = (1 - a)(M_k-1 + 1), V_k = (1 - a)^2 (V_k-1 + 1)
 * and a = 2^-decay_shift.  Hence full = w M_k, and, writing q = h / full,
 * var = h (full - h) V_k / M_k^2, that is D = M_k^2 / V_k: 1 after one period,
 * 2^(decay_shift + 1) - 1 in the long run.
 */
static void cxlt_noise_step(struct cxlt_policy *pol)
{
	u32 d = pol->params.decay_shift;
	u64 x;

	x = pol->mean_fp + CXLT_FP_ONE;
	pol->mean_fp = x - (x >> d);
	x = pol->var_fp + CXLT_FP_ONE;
	pol->var_fp = x - (x >> (d - 1)) + (x >> (2 * d));
}

static void cxlt_noise_commit(struct cxlt_policy *pol)
{
	u64 d;

	/* w M_k with w = 2^(15 - decay_shift) and M_k in 16.16 */
	pol->full = pol->mean_fp >> (1 + pol->params.decay_shift);
	if (!pol->full)
		pol->full = 1;
	d = pol->var_fp ? cxlt_div64(pol->mean_fp * pol->mean_fp,
				     pol->var_fp) : 0;
	d = (d + (CXLT_FP_ONE >> 1)) >> 16;
	pol->noise_div = d ? d : 1;
	pol->one = pol->full / pol->noise_div;
	if (!pol->one)
		pol->one = 1;
	pol->log_total = cxlt_log2_8(pol->full + 2 * pol->one);
}

static void cxlt_commit_params(struct cxlt_policy *pol,
			       const struct cxlt_policy_params *params)
{
	u32 k;

	pol->params = *params;
	pol->ainv[0] = CXLT_FP_ONE;
	for (k = 1; k <= CXLT_INV_MAX; k++)
		pol->ainv[k] = cxlt_div64(pol->ainv[k - 1] << params->decay_shift,
					  (1U << params->decay_shift) - 1);
	/* Replay the noise model for the new decay over the same age. */
	pol->mean_fp = 0;
	pol->var_fp = 0;
	for (k = 0; k < pol->age; k++)
		cxlt_noise_step(pol);
	cxlt_noise_commit(pol);
}

/**
 * cxlt_policy_size() - memory needed for the state of @npages pages
 * @npages: pages to track
 *
 * Return: bytes to allocate (8-byte aligned) for cxlt_policy_init(), or 0 if
 * @npages is 0 or the size does not fit in size_t.
 */
size_t cxlt_policy_size(u32 npages)
{
	size_t max = ~(size_t)0;

	if (!npages)
		return 0;
	if (npages > (max - sizeof(struct cxlt_policy)) /
		     sizeof(struct cxlt_page))
		return 0;
	return sizeof(struct cxlt_policy) +
	       (size_t)npages * sizeof(struct cxlt_page);
}

/**
 * cxlt_policy_default_params() - defaults for a table of @npages pages
 * @params: filled in
 * @npages: pages tracked
 * @fast_pages: fast-tier pages the policy may fill
 *
 * The budget is 1/16 of the fast tier per period, so a complete refill takes
 * 16 periods.  The watermarks are small because the fast tier is shared with
 * the rest of the system, whose own reclaim keeps its free memory.  The
 * other values come from the simulator runs in Documentation/design.rst.
 *
 * Return: 0, or -EINVAL if @params is NULL or @npages is 0.
 */
int cxlt_policy_default_params(struct cxlt_policy_params *params, u32 npages,
			       u32 fast_pages)
{
	if (!params || !npages)
		return -EINVAL;
	params->fast_pages = fast_pages;
	params->wmark_low = fast_pages >> 8;
	params->wmark_high = fast_pages >> 7;
	params->budget = fast_pages >> 4 ? fast_pages >> 4 : 1;
	params->decay_shift = 5;
	params->idle_bits = 2;
	params->burst_bits = 2;
	params->confidence = 4;
	params->hyst_steps = 4;
	params->min_resid = 4;
	params->idle_fdr = 16;
	params->burst_fdr = 4;
	return 0;
}

/**
 * cxlt_policy_init() - set up a policy state in caller memory
 * @out: set to the state, which lives in @mem
 * @mem: memory from the caller, 8-byte aligned, at least
 *	cxlt_policy_size(@npages) bytes; owned by the state until the caller
 *	stops using it (there is no destructor: free @mem)
 * @size: bytes at @mem
 * @npages: pages tracked; all start unpopulated (CXLT_TIER_NONE), cold and
 *	without hint
 * @params: tunables, copied
 *
 * Return: 0, or -EINVAL for a NULL pointer, misaligned or short memory, zero
 * pages or invalid tunables (watermarks out of order or above the fast tier,
 * decay_shift outside 1..8, idle_bits or burst_bits above 30, hyst_steps
 * above 111, idle_fdr or burst_fdr 0).
 */
int cxlt_policy_init(struct cxlt_policy **out, void *mem, size_t size,
		     u32 npages, const struct cxlt_policy_params *params)
{
	struct cxlt_policy *pol = mem;
	size_t need = cxlt_policy_size(npages);
	u8 *p = mem;
	size_t i;

	if (!out || !mem || !need || size < need ||
	    ((unsigned long)mem & 7) || !cxlt_params_valid(params))
		return -EINVAL;
	/*
	 * memset() has a different header in each build; the compiler turns
	 * this loop into a call to it where it is worth it.
	 */
	for (i = 0; i < need; i++)
		p[i] = 0;
	pol->npages = npages;
	pol->nblocks = (npages - 1) / CXLT_BLOCK + 1;
	/* About 0.618 of the table apart, coprime with it. */
	pol->stride = (u32)(((u64)pol->nblocks * 158) >> 8) | 1;
	while (cxlt_gcd(pol->stride, pol->nblocks) != 1)
		pol->stride += 2;
	cxlt_commit_params(pol, params);
	pol->hot_bin = CXLT_NBINS;
	*out = pol;
	return 0;
}

/**
 * cxlt_policy_set_params() - change the tunables
 * @pol: state
 * @params: new tunables, copied
 *
 * Takes effect at the next cxlt_policy_end_period(); heat is kept.
 *
 * Return: 0, or -EINVAL if @pol is NULL or the tunables are invalid (see
 * cxlt_policy_init()).
 */
int cxlt_policy_set_params(struct cxlt_policy *pol,
			   const struct cxlt_policy_params *params)
{
	if (!pol || !cxlt_params_valid(params))
		return -EINVAL;
	cxlt_commit_params(pol, params);
	return 0;
}

/**
 * cxlt_policy_get_params() - read the tunables in force
 * @pol: state
 * @params: filled in
 *
 * Return: 0, or -EINVAL for a NULL pointer.
 */
int cxlt_policy_get_params(const struct cxlt_policy *pol,
			   struct cxlt_policy_params *params)
{
	if (!pol || !params)
		return -EINVAL;
	*params = pol->params;
	return 0;
}

static void cxlt_count_tier(struct cxlt_policy *pol, u32 tier, int delta)
{
	if (tier == CXLT_TIER_FAST)
		pol->nr_fast += delta;
	else if (tier == CXLT_TIER_SLOW)
		pol->nr_slow += delta;
}

static void cxlt_move(struct cxlt_policy *pol, struct cxlt_page *pg, u32 tier)
{
	cxlt_count_tier(pol, cxlt_page_tier(pg), -1);
	cxlt_count_tier(pol, tier, 1);
	pg->flags = (pg->flags & ~(CXLT_PF_TIER_MASK | CXLT_PF_JUMP)) | tier;
}

/**
 * cxlt_policy_set_tier() - tell the policy where a page is, outside its plan
 * @pol: state
 * @page: page number
 * @tier: where the page now is: placed at first touch, freed
 *	(CXLT_TIER_NONE) or moved by someone else (the kernel's own demotion)
 *
 * Not a migration of the policy's: no counters move.  The page is held where
 * it is for min_resid periods, so that it gathers heat before heat judges it.
 * A page placed (from CXLT_TIER_NONE) gets no heat from samples of the
 * current period: the access that placed it set its accessed bit.  A freed
 * page loses its heat (the next page there is a new page) but keeps its hint,
 * which belongs to the region offset.
 *
 * Return: 0, or -EINVAL for a NULL @pol, @page out of range or a bad @tier.
 */
int cxlt_policy_set_tier(struct cxlt_policy *pol, u32 page,
			 enum cxlt_tier_class tier)
{
	struct cxlt_page *pg;

	if (!pol || page >= pol->npages || (u32)tier > CXLT_TIER_SLOW)
		return -EINVAL;
	pg = &pol->pages[page];
	if (cxlt_page_tier(pg) == CXLT_TIER_NONE && tier != CXLT_TIER_NONE)
		pg->flags |= CXLT_PF_FRESH;
	cxlt_move(pol, pg, tier);
	pg->resid = 0;
	pg->flags &= ~CXLT_PF_BACKOFF;
	if (tier == CXLT_TIER_NONE) {
		pg->heat = 0;
		pg->run = 0;
		pg->bin = 0;
		pg->flags &= ~CXLT_PF_TOUCHED;
	}
	return 0;
}

/**
 * cxlt_policy_set_hint() - record an application hint for a page
 * @pol: state
 * @page: page number
 * @hint: enum cxlt_hint; CXLT_HINT_NONE clears
 *
 * Acts from the next cxlt_policy_end_period() on; a hint does not wait out
 * the minimum residency, except after a failed migration.
 *
 * Return: 0, or -EINVAL for a NULL @pol, @page out of range or a bad @hint.
 */
int cxlt_policy_set_hint(struct cxlt_policy *pol, u32 page,
			 enum cxlt_hint hint)
{
	struct cxlt_page *pg;

	if (!pol || page >= pol->npages || (u32)hint > CXLT_HINT_PIN)
		return -EINVAL;
	pg = &pol->pages[page];
	pg->flags = (pg->flags & ~CXLT_PF_HINT_MASK) |
		    (hint << CXLT_PF_HINT_SHIFT);
	return 0;
}

/**
 * cxlt_policy_record_access() - report sampled accesses of a page
 * @pol: state
 * @page: page number
 * @count: samples seen in this period (1 for an accessed bit; hint faults
 *	may report more); 0 is accepted and changes nothing
 *
 * Heat saturates at 65535: a count of any size is safe.  Samples of a page
 * in the period it was placed in are ignored (see cxlt_policy_set_tier()).
 *
 * Return: 0, or -EINVAL for a NULL @pol or @page out of range.
 */
int cxlt_policy_record_access(struct cxlt_policy *pol, u32 page, u32 count)
{
	struct cxlt_page *pg;
	u32 shift, heat;

	if (!pol || page >= pol->npages)
		return -EINVAL;
	if (!count)
		return 0;
	pg = &pol->pages[page];
	if (pg->flags & CXLT_PF_FRESH)
		return 0;
	shift = CXLT_HEAT_SHIFT - pol->params.decay_shift;
	heat = pg->heat;
	/* Compare before shifting: count << shift may not fit in 32 bits. */
	if (count > ((CXLT_HEAT_MAX - heat) >> shift))
		heat = CXLT_HEAT_MAX;
	else
		heat += count << shift;
	pg->heat = heat;
	pg->flags |= CXLT_PF_TOUCHED;
	return 0;
}

/*
 * The surprise of one period of direction @dir (1 sampled, 0 idle) for a
 * page of heat @h, in 1/8 bits: -log2 of its probability, with one
 * pseudo-sample each way (Laplace) and the rate shrunk towards the mean by
 * the skew (DOC: Method).
 */
static u32 cxlt_per(const struct cxlt_policy *pol, u32 h, u32 dir)
{
	u32 m = ((u64)pol->mean_rate * pol->full) >> 16, s = pol->skew;

	h = (cxlt_min(h, pol->full) * s + m * (256 - s)) >> 8;
	return pol->log_total - cxlt_log2_8(dir ? h + pol->one :
					    pol->full - h + pol->one);
}

/*
 * The heat a page had when its current run @run started, from its heat @heat
 * now: undoes the run's decay and, for a sampled run, its samples, which
 * lead to @inf (the heat of a page sampled in every period, in the long
 * run).  Runs beyond CXLT_INV_MAX are undone as if that long.
 */
static u32 cxlt_run_start(const struct cxlt_policy *pol, int run, u32 heat)
{
	u32 k = run < 0 ? -run : run;
	u64 inv = pol->ainv[cxlt_min(k, CXLT_INV_MAX)];
	u64 inf = (1U << CXLT_HEAT_SHIFT) -
		  (1U << (CXLT_HEAT_SHIFT - pol->params.decay_shift));
	u64 d;

	if (run < 0)
		return cxlt_min((heat * inv) >> 16, CXLT_HEAT_MAX);
	if (heat >= inf)
		return inf;
	d = ((inf - heat) * inv) >> 16;
	return d >= inf ? 0 : inf - d;
}

/* 2^(-i/8) in 16.16 */
static const u32 cxlt_exp8[8] = {
	65536, 60097, 55109, 50535, 46341, 42495, 38968, 35734,
};

/*
 * The cut of the change test of DOC: Method, in whole bits of surprise, for
 * one direction @up: @surp counts the pages tested by the surprise of their
 * run, @rate by the step of heat they are tested at, whose surprise of one
 * period is p.  E(b) sums 2^-(p ceil(b / p)) over them; the cut is the
 * lowest b from @floor with at least CXLT_CHANGE_MIN pages at b bits or more
 * and at least @fdr E(b) of them.  CXLT_CUT_NEVER if there is none or @floor
 * is 0 (the test is off).
 */
static u32 cxlt_change_cut(const struct cxlt_policy *pol, u32 up, u32 floor,
			   u32 fdr)
{
	const u32 *surp = pol->surp[up], *rate = pol->rate[up];
	const u8 *per = pol->per[up];
	u32 b, i, p, x, n = 0, cut = CXLT_CUT_NEVER;
	u64 e;

	if (!floor)
		return CXLT_CUT_NEVER;
	for (b = CXLT_CUT_NEVER - 1; b >= floor; b--) {
		n += surp[b];
		if (n < CXLT_CHANGE_MIN)
			continue;
		e = 0;
		for (i = 0; i < CXLT_NBINS; i++) {
			p = per[i];
			if (!rate[i] || !p)
				continue;
			x = (8 * b + p - 1) / p * p;
			/* Beyond 2^-48 a page adds nothing that counts. */
			if (x < 8 * 48)
				e += ((u64)rate[i] * cxlt_exp8[x & 7]) >> (x >> 3);
		}
		if (e * fdr <= (u64)n << 16)
			cut = b;
	}
	return cut;
}

/*
 * The hot threshold: the step where the unhinted pages, hottest first, fill
 * what the fast tier has left after the high watermark and the pages that
 * hints and pins put there: the lowest step that still fits in part.  Heat 0
 * (no sample in many periods) never counts.
 */
static u32 cxlt_hot_bin(const u32 *rank, u64 avail)
{
	u64 acc = 0;
	u32 b, hot = CXLT_NBINS;

	if (!avail)
		return CXLT_NBINS;
	for (b = CXLT_NBINS - 1; b >= 1; b--) {
		if (!rank[b])
			continue;
		if (acc + rank[b] > avail) {
			if (acc < avail)
				hot = b;
			break;
		}
		acc += rank[b];
		hot = b;
	}
	return hot;
}

/*
 * The skew of DOC: Method, in 1/256: 1 - noise variance / observed variance
 * of heat over the ranked pages, from their histogram; their mean heat goes
 * to @mean_rate.  Heats are taken in units of 16 to keep the sums within 64
 * bits for 2^32 pages.
 */
static u32 cxlt_skew(const struct cxlt_policy *pol, const u32 *rank,
		     u32 *mean_rate)
{
	u64 full = pol->full >> 4, n = 0, s1 = 0, s2 = 0, sv = 0;
	u64 one = (pol->full >> 4) / pol->noise_div, mean, var, noise, m;
	u32 b;

	for (b = 0; b < CXLT_NBINS; b++) {
		if (!rank[b])
			continue;
		m = (cxlt_bin_floor(b) + cxlt_bin_ceil(b)) >> 5;
		if (m > full)
			m = full;
		n += rank[b];
		s1 += rank[b] * m;
		s2 += rank[b] * m * m;
		sv += rank[b] * (m + one) * (full - m + one);
	}
	if (!n)
		return 0;
	mean = cxlt_div64(s1, n);
	*mean_rate = full ? cxlt_min(cxlt_div64(mean << 16, full), 1U << 16) : 0;
	var = cxlt_div64(s2, n);
	var = var > mean * mean ? var - mean * mean : 0;
	noise = cxlt_div64(sv, n * pol->noise_div);
	if (noise >= var)
		return 0;
	return 256 - (u32)cxlt_div64(noise << 8, var);
}

/*
 * First pass of cxlt_policy_end_period(): runs, decay, residency, and the
 * histograms of the change test.  The surprise of each run waits in @bin for
 * the second pass.
 */
static void cxlt_age_pages(struct cxlt_policy *pol)
{
	u32 decay = pol->params.decay_shift, i, heat, b, k, p, up, rise;

	for (i = 0; i < pol->npages; i++) {
		struct cxlt_page *pg = &pol->pages[i];
		int run = pg->run;

		if (!(i & CXLT_YIELD_MASK))
			cxlt_yield();
		if (pg->flags & CXLT_PF_TOUCHED) {
			run = run > 0 ? run + (run < CXLT_RUN_MAX) : 1;
		} else {
			run = run < 0 ? run - (run > -CXLT_RUN_MAX) : -1;
			pg->flags &= ~CXLT_PF_JUMP;
		}
		pg->run = run;
		pg->flags &= ~(CXLT_PF_TOUCHED | CXLT_PF_FRESH);
		if (pg->resid < CXLT_RESID_MAX)
			pg->resid++;
		heat = pg->heat;
		/* Rounded up, so that a small heat still reaches 0. */
		heat -= (heat + (1U << decay) - 1) >> decay;
		pg->heat = heat;
		pg->bin = 0;
		if (cxlt_page_tier(pg) == CXLT_TIER_NONE)
			continue;
		/* A rise is tested on the slow tier, a fall on the fast one. */
		up = cxlt_page_tier(pg) == CXLT_TIER_SLOW;
		rise = run > 0;
		if (up == rise) {
			b = cxlt_heat_bin(cxlt_run_start(pol, run, heat));
			p = pol->per[up][b];
			k = run < 0 ? -run : run;
			pg->bin = p && k > CXLT_SURPRISE_MAX / p ?
				  CXLT_SURPRISE_MAX : k * p;
		} else {
			b = cxlt_heat_bin(heat);
		}
		pol->surp[up][pg->bin >> 3]++;
		pol->rate[up][b]++;
	}
}

/**
 * cxlt_policy_end_period() - age every page and rank them for selection
 * @pol: state
 *
 * Decays the heat of every page, applies the change test, and builds the
 * histograms, the hot threshold and the skew that the next
 * cxlt_policy_select() uses.  Two passes over the page table: the second
 * knows this period's cut of the change test.
 *
 * Return: 0, or -EINVAL if @pol is NULL.
 */
int cxlt_policy_end_period(struct cxlt_policy *pol)
{
	u32 rank[CXLT_NBINS];
	u32 min_resid, i, b, k, tier, hint, heat, cut[2];
	u64 fixed = 0, cap;
	bool may_move;

	if (!pol)
		return -EINVAL;
	if (pol->age < CXLT_AGE_MAX) {
		pol->age++;
		cxlt_noise_step(pol);
		cxlt_noise_commit(pol);
	}
	min_resid = pol->params.min_resid;
	for (b = 0; b < CXLT_NBINS; b++) {
		rank[b] = 0;
		pol->hist_slow[b] = 0;
		pol->hist_fast[b] = 0;
		pol->hist_jump[b] = 0;
	}
	pol->n_hot_slow = 0;
	pol->n_cold_fast = 0;
	pol->n_fast_elig = 0;

	for (b = 0; b < CXLT_CUT_NEVER; b++) {
		pol->surp[0][b] = 0;
		pol->surp[1][b] = 0;
	}
	for (b = 0; b < CXLT_NBINS; b++) {
		heat = (cxlt_bin_floor(b) + cxlt_bin_ceil(b)) / 2;
		pol->rate[0][b] = 0;
		pol->rate[1][b] = 0;
		pol->per[0][b] = cxlt_per(pol, heat, 0);
		pol->per[1][b] = cxlt_per(pol, heat, 1);
	}
	cxlt_age_pages(pol);
	cut[0] = cxlt_change_cut(pol, 0, pol->params.idle_bits,
				 pol->params.idle_fdr);
	cut[1] = cxlt_change_cut(pol, 1, pol->params.burst_bits,
				 pol->params.burst_fdr);

	for (i = 0; i < pol->npages; i++) {
		struct cxlt_page *pg = &pol->pages[i];

		if (!(i & CXLT_YIELD_MASK))
			cxlt_yield();
		heat = pg->heat;
		tier = cxlt_page_tier(pg);
		k = pg->run < 0 ? -pg->run : pg->run;
		/* Only runs tested in pass 1 have a surprise in bin. */
		if (tier == CXLT_TIER_FAST && (pg->bin >> 3) >= cut[0]) {
			k += CXLT_FALL_EXTRA;
			if (heat > (k < 16 ? pol->full >> k : 0)) {
				heat = k < 16 ? pol->full >> k : 0;
				pg->heat = heat;
				pol->stats.falls++;
			}
		} else if (tier == CXLT_TIER_SLOW &&
			   (pg->bin >> 3) >= cut[1]) {
			if (heat < pol->full - (k < 16 ? pol->full >> k : 0)) {
				heat = pol->full - (k < 16 ? pol->full >> k : 0);
				pg->heat = heat;
				pg->flags |= CXLT_PF_JUMP;
				pol->stats.rises++;
			}
		}
		pg->bin = cxlt_heat_bin(heat);
		if (tier == CXLT_TIER_NONE)
			continue;
		hint = cxlt_page_hint(pg);
		may_move = pg->resid >= min_resid;
		switch (hint) {
		case CXLT_HINT_NONE:
			rank[pg->bin]++;
			if (!may_move)
				break;
			if (tier == CXLT_TIER_FAST) {
				pol->hist_fast[pg->bin]++;
				pol->n_fast_elig++;
			} else if (pg->flags & CXLT_PF_JUMP) {
				pol->hist_jump[pg->bin]++;
			} else {
				pol->hist_slow[pg->bin]++;
			}
			break;
		case CXLT_HINT_HOT:
			fixed++;
			may_move |= !(pg->flags & CXLT_PF_BACKOFF);
			if (tier == CXLT_TIER_SLOW && may_move)
				pol->n_hot_slow++;
			break;
		case CXLT_HINT_COLD:
			may_move |= !(pg->flags & CXLT_PF_BACKOFF);
			if (tier == CXLT_TIER_FAST && may_move)
				pol->n_cold_fast++;
			break;
		default:
			if (tier == CXLT_TIER_FAST)
				fixed++;
			break;
		}
	}

	cap = pol->params.fast_pages - pol->params.wmark_high;
	pol->hot_bin = cxlt_hot_bin(rank, cap > fixed ? cap - fixed : 0);
	pol->skew = cxlt_skew(pol, rank, &pol->mean_rate);
	pol->stats.promote_candidates = 0;
	for (b = pol->hot_bin; b < CXLT_NBINS; b++)
		pol->stats.promote_candidates += pol->hist_slow[b];
	pol->stats.hot_heat = pol->hot_bin < CXLT_NBINS ?
			      cxlt_bin_floor(pol->hot_bin) : CXLT_HEAT_MAX + 1;
	pol->stats.skew = pol->skew;
	pol->stats.changes = pol->stats.rises + pol->stats.falls;
	pol->stats.fall_cut = cut[0];
	pol->stats.rise_cut = cut[1];
	pol->stats.periods++;
	pol->selected = false;
	return 0;
}

/*
 * D times the noise variance of heat @h.  The plain h (full - h) says a page
 * sampled in none or all of its periods has no noise at all, which is absurd
 * after a few periods; one pseudo-sample on each side (Laplace) fixes that.
 */
static u64 cxlt_var(const struct cxlt_policy *pol, u32 h)
{
	h = cxlt_min(h, pol->full);
	return (u64)(h + pol->one) * (pol->full - h + pol->one);
}

/*
 * Is a slow page of heat @hs worth a fast page of heat @hf?  The difference,
 * shrunk by the skew, must exceed confidence/4 standard deviations of the
 * noise of the difference of two pages:
 *   skew (hs - hf)^2 > (conf/4)^2 (var(hs) + var(hf)),
 * scaled to integers.
 */
static bool cxlt_worth(const struct cxlt_policy *pol, u32 hs, u32 hf)
{
	u64 diff, lhs, rhs, conf = pol->params.confidence;

	if (hs <= hf)
		return false;
	if (!conf)
		return true;
	hs = cxlt_min(hs, pol->full);
	hf = cxlt_min(hf, pol->full);
	diff = hs > hf ? hs - hf : 0;
	lhs = diff * diff * pol->noise_div * 16 * pol->skew;
	rhs = conf * conf * (cxlt_var(pol, hs) + cxlt_var(pol, hf)) * 256;
	return lhs > rhs;
}

/* Where the @n coldest (@up) or hottest pages of histogram @h end. */
static void cxlt_cut(const u32 *h, u32 lo, u32 n, bool up, u32 *cut,
		     u32 *take)
{
	u32 b, i;

	*cut = up ? 0 : CXLT_NBINS;
	*take = 0;
	for (i = 0; n && i < CXLT_NBINS - lo; i++) {
		b = up ? lo + i : CXLT_NBINS - 1 - i;
		if (h[b] >= n) {
			*cut = b;
			*take = n;
			return;
		}
		n -= h[b];
	}
}

/* Counts of one selection, before the pages are picked. */
struct cxlt_counts {
	u32 cold;	/* COLD-hinted demotions */
	u32 hot;	/* HOT-hinted promotions */
	u32 demote;	/* coldest unhinted fast pages to demote */
	u32 promote;	/* hottest unhinted slow pages to promote */
	u32 jump;	/* slow pages whose heat jumped, to promote */
};

/*
 * Jumped pages (DOC: Method) go first and without the confidence test, which
 * the change test stands for: into free room, then against the coldest fast
 * pages not already taken, at or below the hot threshold and more than the
 * hysteresis below them.
 */
static void cxlt_walk_jump(const struct cxlt_policy *pol,
			   struct cxlt_counts *c, s64 *room, u32 *bp, u32 *bd)
{
	u32 hot = pol->hot_bin, hyst = pol->params.hyst_steps;
	u32 bs = CXLT_NBINS, bf = 0, rem_s = 0, rem_f = 0, k;
	u32 skip = c->demote;

	while (*bp) {
		if (!rem_s) {
			while (bs > hot && !rem_s)
				rem_s = pol->hist_jump[--bs];
			if (!rem_s)
				break;
		}
		if (*room > 0) {
			k = cxlt_min(cxlt_min(rem_s, *bp), *room);
			rem_s -= k;
			*bp -= k;
			*room -= k;
			c->jump += k;
			continue;
		}
		if (!*bd)
			break;
		while (!rem_f && bf < CXLT_NBINS) {
			rem_f = pol->hist_fast[bf];
			k = cxlt_min(rem_f, skip);
			rem_f -= k;
			skip -= k;
			if (!rem_f)
				bf++;
		}
		if (!rem_f || bf > hot || bf + hyst >= bs)
			break;
		k = cxlt_min(cxlt_min(rem_s, rem_f), cxlt_min(*bp, *bd));
		rem_s -= k;
		rem_f -= k;
		if (!rem_f)
			bf++;
		*bp -= k;
		*bd -= k;
		c->jump += k;
		c->demote += k;
	}
}

/*
 * The exchange walk: hottest slow candidates against the coldest fast pages
 * not already taken, step by step, while budgets last, free room is left or
 * the pair is worth it (and the candidate is worth the threshold, DOC:
 * Method).  A fast page above the hot threshold is where it belongs and is
 * never a partner.  Both sequences are monotonic, so the first pair that is
 * not worth it ends the walk.
 */
static void cxlt_walk(const struct cxlt_policy *pol, struct cxlt_counts *c,
		      s64 room, u32 bp, u32 bd)
{
	u32 hot = pol->hot_bin, hyst = pol->params.hyst_steps;
	u32 bs = CXLT_NBINS, bf = 0, rem_s = 0, rem_f = 0, k;
	u32 skip = c->demote;

	while (bp) {
		if (!rem_s) {
			while (bs > hot && !rem_s)
				rem_s = pol->hist_slow[--bs];
			if (!rem_s)
				break;
		}
		if (room > 0) {
			k = cxlt_min(cxlt_min(rem_s, bp), room);
			rem_s -= k;
			bp -= k;
			room -= k;
			c->promote += k;
			continue;
		}
		if (!bd)
			break;
		while (!rem_f && bf < CXLT_NBINS) {
			rem_f = pol->hist_fast[bf];
			k = cxlt_min(rem_f, skip);
			rem_f -= k;
			skip -= k;
			if (!rem_f)
				bf++;
		}
		if (!rem_f || bf > hot || bf + hyst >= bs ||
		    !cxlt_worth(pol, cxlt_bin_floor(bs), cxlt_bin_ceil(bf)) ||
		    !cxlt_worth(pol, cxlt_bin_floor(bs), cxlt_bin_floor(hot)))
			break;
		k = cxlt_min(cxlt_min(rem_s, rem_f), cxlt_min(bp, bd));
		rem_s -= k;
		rem_f -= k;
		if (!rem_f)
			bf++;
		bp -= k;
		bd -= k;
		c->promote += k;
		c->demote += k;
	}
}

static void cxlt_plan_counts(const struct cxlt_policy *pol,
			     struct cxlt_counts *c, u32 bp, u32 bd)
{
	const struct cxlt_policy_params *pp = &pol->params;
	s64 free = (s64)pp->fast_pages - pol->nr_fast;
	s64 room;
	u32 k;

	/* COLD hints first: they override heat and make room. */
	c->cold = cxlt_min(pol->n_cold_fast, bd);
	bd -= c->cold;
	free += c->cold;

	/* Pressure: below the low watermark, back up to the high one. */
	if (free < (s64)pp->wmark_low) {
		room = (s64)pp->wmark_high - free;
		k = room < bd ? (u32)room : bd;
		k = cxlt_min(k, pol->n_fast_elig);
		c->demote += k;
		bd -= k;
		free += k;
	}

	/* HOT hints: promote, evicting the coldest unhinted pages if needed. */
	room = free - pp->wmark_high;
	c->hot = cxlt_min(pol->n_hot_slow, bp);
	if ((s64)c->hot > room) {
		k = cxlt_min(cxlt_min(c->hot - (room > 0 ? room : 0), bd),
			     pol->n_fast_elig - c->demote);
		c->demote += k;
		bd -= k;
		room += k;
		if ((s64)c->hot > room)
			c->hot = room > 0 ? room : 0;
	}
	bp -= c->hot;
	room -= c->hot;

	cxlt_walk_jump(pol, c, &room, &bp, &bd);
	cxlt_walk(pol, c, room, bp, bd);
}

/**
 * cxlt_policy_select() - choose this period's promotions and demotions
 * @pol: state
 * @plan: caller's arrays in, chosen pages out
 *
 * Uses the ranking of the last cxlt_policy_end_period(); call it once,
 * right after: further calls in the same period choose nothing, since the
 * pages chosen have not moved yet.  At most the budget is planned in each
 * direction, and never more than the arrays hold (size them to the budget).
 * Order of choice: COLD-hinted fast pages; the coldest fast
 * pages when free fast pages are below the low watermark (up to the high
 * one); HOT-hinted slow pages; jumped slow pages (whose heat the change test
 * raised) into free room above the high watermark, then in exchange for cold
 * fast pages that pass the hysteresis; other hot slow pages likewise, the
 * exchanges passing the confidence test as well.  Pinned pages never move;
 * pages migrated less than min_resid periods ago move only by hint.
 *
 * Return: 0, or -EINVAL if @pol or @plan is NULL, or an array is NULL while
 * its size is not 0.
 */
int cxlt_policy_select(struct cxlt_policy *pol, struct cxlt_policy_plan *plan)
{
	struct cxlt_counts c = { 0 };
	u32 bp, bd, cut_p, take_p, cut_d, take_d, cut_j, take_j, i, blk, page;
	u32 got_cold = 0, got_hot = 0, got_p = 0, got_d = 0, got_j = 0;
	u32 min_resid;
	u64 n;

	if (!pol || !plan || (!plan->promote && plan->promote_max) ||
	    (!plan->demote && plan->demote_max))
		return -EINVAL;
	plan->nr_promote = 0;
	plan->nr_demote = 0;
	/*
	 * One selection per period: a second one would choose the same pages
	 * again, as nothing has moved yet.
	 */
	if (pol->selected)
		return 0;
	pol->selected = true;
	bp = cxlt_min(pol->params.budget, plan->promote_max);
	bd = cxlt_min(pol->params.budget, plan->demote_max);
	if (!bp && !bd)
		return 0;

	cxlt_plan_counts(pol, &c, bp, bd);
	if (!(c.cold | c.hot | c.demote | c.promote | c.jump))
		return 0;
	cxlt_cut(pol->hist_fast, 0, c.demote, true, &cut_d, &take_d);
	cxlt_cut(pol->hist_slow, pol->hot_bin, c.promote, false, &cut_p,
		 &take_p);
	cxlt_cut(pol->hist_jump, pol->hot_bin, c.jump, false, &cut_j,
		 &take_j);

	min_resid = pol->params.min_resid;
	i = pol->rotor < pol->npages ? pol->rotor : 0;
	blk = i / CXLT_BLOCK;
	for (n = 0; n < (u64)pol->nblocks * CXLT_BLOCK; n++) {
		struct cxlt_page *pg;
		u32 tier, hint;
		bool settled, hint_ok;

		if (!(n & CXLT_YIELD_MASK))
			cxlt_yield();
		if (n && i % CXLT_BLOCK == 0) {
			blk += pol->stride;
			if (blk >= pol->nblocks)
				blk -= pol->nblocks;
			i = blk * CXLT_BLOCK;
		}
		page = i++;
		if (page >= pol->npages)
			continue;
		pg = &pol->pages[page];
		tier = cxlt_page_tier(pg);
		hint = cxlt_page_hint(pg);
		settled = pg->resid >= min_resid;
		hint_ok = settled || !(pg->flags & CXLT_PF_BACKOFF);

		if (tier == CXLT_TIER_FAST) {
			if (hint == CXLT_HINT_COLD && hint_ok &&
			    got_cold < c.cold) {
				plan->demote[plan->nr_demote++] = page;
				got_cold++;
			} else if (hint == CXLT_HINT_NONE && settled &&
				   got_d < c.demote &&
				   (pg->bin < cut_d ||
				    (pg->bin == cut_d && take_d))) {
				if (pg->bin == cut_d)
					take_d--;
				plan->demote[plan->nr_demote++] = page;
				got_d++;
			}
		} else if (tier == CXLT_TIER_SLOW) {
			if (hint == CXLT_HINT_HOT && hint_ok &&
			    got_hot < c.hot) {
				plan->promote[plan->nr_promote++] = page;
				got_hot++;
			} else if (pg->flags & CXLT_PF_JUMP) {
				if (hint == CXLT_HINT_NONE && settled &&
				    got_j < c.jump &&
				    (pg->bin > cut_j ||
				     (pg->bin == cut_j && take_j))) {
					if (pg->bin == cut_j)
						take_j--;
					plan->promote[plan->nr_promote++] = page;
					got_j++;
				}
			} else if (hint == CXLT_HINT_NONE && settled &&
				   got_p < c.promote &&
				   (pg->bin > cut_p ||
				    (pg->bin == cut_p && take_p))) {
				if (pg->bin == cut_p)
					take_p--;
				plan->promote[plan->nr_promote++] = page;
				got_p++;
			}
		}
		if (got_cold == c.cold && got_hot == c.hot &&
		    got_d == c.demote && got_p == c.promote && got_j == c.jump)
			break;
	}
	pol->rotor = i;
	return 0;
}

/**
 * cxlt_policy_migrated() - report the outcome of one planned migration
 * @pol: state
 * @page: page number
 * @tier: tier the page was to move to (CXLT_TIER_FAST or CXLT_TIER_SLOW)
 * @result: 0 if the page is now on @tier, a negative errno if it stayed
 *
 * Keeps the policy's view of where pages are right when migrations fail: a
 * failed page stays where it was, and waits min_resid periods before it is
 * tried again, even if hinted (a page that failed once, say because it is
 * pinned by get_user_pages(), would otherwise take budget every period).
 *
 * Return: 0, or -EINVAL for a NULL @pol, @page out of range or a bad @tier.
 */
int cxlt_policy_migrated(struct cxlt_policy *pol, u32 page,
			 enum cxlt_tier_class tier, int result)
{
	struct cxlt_page *pg;

	if (!pol || page >= pol->npages ||
	    (tier != CXLT_TIER_FAST && tier != CXLT_TIER_SLOW))
		return -EINVAL;
	pg = &pol->pages[page];
	pg->resid = 0;
	if (result) {
		pg->flags |= CXLT_PF_BACKOFF;
		pol->stats.failed++;
		return 0;
	}
	pg->flags &= ~CXLT_PF_BACKOFF;
	if (cxlt_page_tier(pg) == tier)
		return 0;
	cxlt_move(pol, pg, tier);
	if (tier == CXLT_TIER_FAST)
		pol->stats.promoted++;
	else
		pol->stats.demoted++;
	return 0;
}

/**
 * cxlt_policy_get_page() - read one page's record
 * @pol: state
 * @page: page number
 * @info: filled in
 *
 * Return: 0, or -EINVAL for a NULL pointer or @page out of range.
 */
int cxlt_policy_get_page(const struct cxlt_policy *pol, u32 page,
			 struct cxlt_page_info *info)
{
	const struct cxlt_page *pg;

	if (!pol || !info || page >= pol->npages)
		return -EINVAL;
	pg = &pol->pages[page];
	info->tier = cxlt_page_tier(pg);
	info->hint = cxlt_page_hint(pg);
	info->heat = pg->heat;
	info->run = pg->run;
	info->resid = pg->resid;
	return 0;
}

/**
 * cxlt_policy_get_stats() - read the counters
 * @pol: state
 * @stats: filled in
 *
 * Return: 0, or -EINVAL for a NULL pointer.
 */
int cxlt_policy_get_stats(const struct cxlt_policy *pol,
			  struct cxlt_policy_stats *stats)
{
	if (!pol || !stats)
		return -EINVAL;
	*stats = pol->stats;
	stats->nr_fast = pol->nr_fast;
	stats->nr_slow = pol->nr_slow;
	return 0;
}
