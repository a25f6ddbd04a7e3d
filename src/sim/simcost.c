/* simcost.c - the simulator's cost measurement (sim.h, struct sim_cost):
 * wall-clock time spent in the scheduler's ops and in the daemon's packet
 * path, per packet, so that the schedulers' costs can be compared on the
 * same load (scripts/sched-bench.sh).
 *
 * The only thing here that reads a system clock, and only to measure:
 * nothing read here flows back into the simulation, which stays a
 * function of its configuration and seed.
 *
 * Every timed interval is two readings of CLOCK_MONOTONIC (clock.h); an
 * interval with nothing inside reads about r, the cost of one reading,
 * which is calibrated at the start (the mean of back-to-back pairs) and
 * taken out of every interval; an interval that contains another timed
 * interval also contains its two readings, 2r, which are taken out too.
 * The scheduler's ops nest inside the packet path, and the simulator's
 * own drop observer nests inside the ops (it is the simulator's work, not
 * the scheduler's, so its time leaves the ops' sum).
 */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

#define COST_CALIB_PAIRS 10000u
#define COST_CALIB_KEEP  9900u          /* the lowest 99 %: no interrupts */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* r above, in ns: the mean of back-to-back readings' differences, the
 * top 1 % left out (a reading interrupted or preempted).  The mean and
 * not the median: clocks step in several ns (10 ns on the project's VMs,
 * so that pairs read 20 or 30 for a true 24.5), and only the mean of
 * many such differences is the cost itself, as it is in the sums it is
 * taken out of. */
static double cost_calibrate(void)
{
	static uint64_t d[COST_CALIB_PAIRS];   /* not on the packet path */
	double sum = 0.0;
	unsigned i;

	for (i = 0; i < COST_CALIB_PAIRS; i++) {
		uint64_t t0 = clock_mono_ns();

		d[i] = clock_mono_ns() - t0;
	}
	qsort(d, COST_CALIB_PAIRS, sizeof(d[0]), cmp_u64);
	for (i = 0; i < COST_CALIB_KEEP; i++)
		sum += (double)d[i];
	return sum / COST_CALIB_KEEP;
}

/* See sim_int.h.  The loop's own interval starts last, after the
 * calibration. */
void sim_cost_start(struct sim *s)
{
	memset(&s->cost, 0, sizeof(s->cost));
	s->cost.clock_ns = cost_calibrate();
	s->cost.on = 1;
	s->cost.loop_raw_ns = clock_mono_ns();
}

/* raw minus the readings' share, never below 0. */
static double cost_net(uint64_t raw_ns, double readings_ns)
{
	double v = (double)raw_ns - readings_ns;

	return v > 0.0 ? v : 0.0;
}

/* See sim_int.h.  The counts are copied whether cost was on or not (they
 * are counted anyway). */
void sim_cost_stop(struct sim *s, struct sim_cost *out)
{
	struct sim_cost_acc *a = &s->cost;
	double r = a->clock_ns;
	uint64_t nested;

	if (a->on)
		a->loop_raw_ns = clock_mono_ns() - a->loop_raw_ns;
	a->on = 0;
	memset(out, 0, sizeof(*out));
	out->enq_pkts = a->enq_pkts;
	out->deq_pkts = a->deq_pkts;
	out->sched_calls = a->sched_calls;
	out->path_calls = a->path_calls;
	out->clock_ns = r;
	if (!a->path_calls && !a->sched_calls)
		return;
	/* ops: their intervals, minus the observer's (its own interval and
	 * its two readings) */
	out->sched_ns = cost_net(a->sched_raw_ns, (double)a->sched_calls * r +
				 (double)a->drop_raw_ns + (double)a->drop_calls * r);
	nested = a->sched_calls + a->drop_calls;
	out->path_ns = cost_net(a->path_raw_ns, (double)a->path_calls * r +
				2.0 * r * (double)nested);
	out->loop_ns = cost_net(a->loop_raw_ns, r + 2.0 * r *
				(double)(nested + a->path_calls));
}

/* Ends a packet-path call timed from t0. */
static void cost_path(struct sim *s, uint64_t t0)
{
	if (s->cost.on) {
		s->cost.path_raw_ns += clock_mono_ns() - t0;
		s->cost.path_calls++;
	}
}

/* See sim_int.h. */
void sim_core_input(struct sim *s, struct pkt *p, tstamp_ns now)
{
	uint64_t t0 = sim_cost_t0(s);

	core_tun_input(&s->core, p, now);
	cost_path(s, t0);
}

/* See sim_int.h. */
tstamp_ns sim_core_run(struct sim *s, tstamp_ns now)
{
	uint64_t t0 = sim_cost_t0(s);
	tstamp_ns wake = core_run(&s->core, now);

	cost_path(s, t0);
	return wake;
}
