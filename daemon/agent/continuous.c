// SPDX-License-Identifier: GPL-2.0
/* Continuous profiling policies, metrics and windows; see continuous.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/continuous.h"
#include "agent/log.h"
#include "lib/json.h"

static const char *const monitor_names[CONTINUOUS_NR_MONITORS] = { "PROCESS_CPU",
								   "PROCESS_THREAD_COUNT",
								   "SYSTEM_LOAD" };
static const char *const meter_suffix[CONTINUOUS_NR_MONITORS] = { "process_cpu",
								  "process_thread_count",
								  "system_load" };
static const char *const target_names[CONTINUOUS_NR_TARGETS] = { "ON_CPU", "OFF_CPU" };

const char *continuous_monitor_name(int m)
{
	return m >= 0 && m < CONTINUOUS_NR_MONITORS ? monitor_names[m] : "?";
}

const char *continuous_meter_suffix(int m)
{
	return m >= 0 && m < CONTINUOUS_NR_MONITORS ? meter_suffix[m] : "?";
}

void continuous_policies_init(struct continuous_policies *p)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
}

static void policy_free(struct continuous_policy *c)
{
	free(c->service);
	free(c->uuid);
}

void continuous_policies_free(struct continuous_policies *p)
{
	for (size_t i = 0; i < p->n; i++)
		policy_free(&p->v[i]);
	free(p->v);
	pthread_mutex_destroy(&p->lock);
}

static struct continuous_policy *find(struct continuous_policies *p, const char *service)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].service, service))
			return &p->v[i];
	return NULL;
}

/* Threshold is a string in the OAP's JSON ("10"); a number is taken too. */
static int item_threshold(int m, const struct json *t, double *out, char *why, size_t whylen)
{
	char *end;

	if (t && t->type == JSON_NUMBER) {
		*out = t->num;
	} else if (t && t->type == JSON_STRING && *t->str) {
		errno = 0;
		*out = strtod(t->str, &end);
		if (errno || *end || !isfinite(*out)) {
			snprintf(why, whylen, "Threshold '%.40s' is not a number", t->str);
			return -1;
		}
	} else {
		snprintf(why, whylen, "Threshold is missing or empty");
		return -1;
	}
	/* Rover parses CPU percent and thread count as integers, load as a float. */
	if (m != CONTINUOUS_SYSTEM_LOAD && *out != floor(*out)) {
		snprintf(why, whylen, "Threshold %g must be an integer for %s", *out,
			 monitor_names[m]);
		return -1;
	}
	if (*out < 0) {
		snprintf(why, whylen, "Threshold %g is negative", *out);
		return -1;
	}
	return 0;
}

static int item_uint(const struct json *o, const char *key, uint32_t *out)
{
	const struct json *v = json_get(o, key);

	if (!v || v->type != JSON_NUMBER || v->num != floor(v->num) || v->num < 0 || v->num > 1e9)
		return -1;
	*out = (uint32_t)v->num;
	return 0;
}

static int parse_item(int m, const struct json *o, struct continuous_item *it, char *why,
		      size_t whylen)
{
	if (!o || o->type != JSON_OBJECT) {
		snprintf(why, whylen, "not an object");
		return -1;
	}
	if (item_threshold(m, json_get(o, "Threshold"), &it->threshold, why, whylen))
		return -1;
	if (item_uint(o, "Period", &it->period) || !it->period) {
		snprintf(why, whylen, "Period must be a positive integer");
		return -1;
	}
	if (item_uint(o, "Count", &it->count) || !it->count) {
		snprintf(why, whylen, "Count must be a positive integer");
		return -1;
	}
	if (it->count > it->period) {
		snprintf(why, whylen, "Count %u is larger than Period %u", it->count, it->period);
		return -1;
	}
	if (it->period > CONTINUOUS_WINDOW_MAX) {
		snprintf(why, whylen, "Period %u is over the %d windows kept", it->period,
			 CONTINUOUS_WINDOW_MAX);
		return -1;
	}
	it->set = true;
	return 0;
}

static int monitor_of(const char *k)
{
	for (int m = 0; m < CONTINUOUS_NR_MONITORS; m++)
		if (!strcmp(k, monitor_names[m]))
			return m;
	return -1;
}

/* One entry's Profiling object into pol->items; counts into st. */
static void parse_profiling(const char *svc, const struct json *prof, struct continuous_policy *pol,
			    struct continuous_apply_stats *st)
{
	for (size_t t = 0; t < prof->n; t++) {
		const char *tk = prof->keys[t];
		const struct json *checks = prof->kids[t];
		int ti = -1;

		for (int i = 0; i < CONTINUOUS_NR_TARGETS; i++)
			if (!strcmp(tk, target_names[i]))
				ti = i;
		if (ti < 0) {
			/* NETWORK needs the network profiler, which skyprof does not have */
			log_warn("continuous: service %s: target %s is not supported by skyprof; "
				 "its checks are ignored",
				 svc, tk);
			st->unsupported++;
			continue;
		}
		if (checks->type != JSON_OBJECT) {
			log_warn("continuous: service %s: %s: expected an object of checks", svc,
				 tk);
			st->rejected++;
			continue;
		}
		for (size_t c = 0; c < checks->n; c++) {
			const char *ck = checks->keys[c];
			int m = monitor_of(ck);
			struct continuous_item it = { 0 };
			char why[160];

			if (m < 0) {
				bool http = !strncmp(ck, "HTTP_", 5);

				log_warn("continuous: service %s: %s check %s is %s; ignored", svc,
					 tk, ck,
					 http ? "unsupported (HTTP checks need network profiling)"
					      : "unknown");
				if (http)
					st->unsupported++;
				else
					st->rejected++;
				continue;
			}
			if (parse_item(m, checks->kids[c], &it, why, sizeof(why))) {
				log_warn("continuous: service %s: %s %s rejected: %s", svc, tk, ck,
					 why);
				st->rejected++;
				continue;
			}
			pol->items[ti][m] = it;
			st->items++;
		}
	}
}

int continuous_policies_apply(struct continuous_policies *p, const char *json, size_t len,
			      const char *default_uuid, struct continuous_apply_stats *st,
			      char *err, size_t errlen)
{
	char perr[200];
	struct json *root = json_parse(json, len, perr, sizeof(perr));
	int r;

	if (!root) {
		if (st)
			memset(st, 0, sizeof(*st));
		snprintf(err, errlen, "policy JSON: %s", perr);
		return -EINVAL;
	}
	r = continuous_policies_apply_value(p, root, default_uuid, st, err, errlen);
	json_free(root);
	return r;
}

int continuous_policies_apply_value(struct continuous_policies *p, const struct json *root,
				    const char *default_uuid, struct continuous_apply_stats *st,
				    char *err, size_t errlen)
{
	struct continuous_apply_stats dummy;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (root->type != JSON_ARRAY) {
		snprintf(err, errlen, "policy JSON: expected an array of services");
		return -EINVAL;
	}
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < root->n; i++) {
		const struct json *e = root->kids[i];
		const struct json *svc = json_get(e, "ServiceName");
		const struct json *uuid = json_get(e, "UUID");
		const struct json *prof = json_get(e, "Profiling");
		const char *u = uuid && uuid->type == JSON_STRING ? uuid->str : default_uuid;
		struct continuous_policy np = { 0 }, *old;

		if (!svc || svc->type != JSON_STRING || !*svc->str) {
			log_warn("continuous: policy entry %zu has no ServiceName; ignored", i);
			st->rejected++;
			continue;
		}
		if (!u) {
			log_warn("continuous: service %s: policy without a UUID; ignored",
				 svc->str);
			st->rejected++;
			continue;
		}
		old = find(p, svc->str);
		if (!*u) {
			/* the OAP's way of saying the policy was deleted */
			if (old) {
				policy_free(old);
				*old = p->v[--p->n];
				log_info("continuous: service %s: policy removed", svc->str);
			}
			st->deleted++;
			st->services++;
			continue;
		}
		if (prof && prof->type != JSON_OBJECT) {
			log_warn("continuous: service %s: Profiling is not an object; ignored",
				 svc->str);
			st->rejected++;
			continue;
		}
		np.service = strdup(svc->str);
		np.uuid = strdup(u);
		if (!np.service || !np.uuid) {
			policy_free(&np);
			st->rejected++;
			continue;
		}
		if (prof)
			parse_profiling(svc->str, prof, &np, st);
		if (!old) {
			struct continuous_policy *nv = realloc(p->v, (p->n + 1) * sizeof(*nv));

			if (!nv) {
				policy_free(&np);
				st->rejected++;
				continue;
			}
			p->v = nv;
			old = &p->v[p->n++];
		} else {
			policy_free(old);
		}
		*old = np;
		st->services++;
		for (int t = 0; t < CONTINUOUS_NR_TARGETS; t++)
			for (int m = 0; m < CONTINUOUS_NR_MONITORS; m++)
				if (np.items[t][m].set)
					log_info(
						"continuous: service %s (policy %s): %s when %s >= "
						"%g in %u of %u s",
						np.service, np.uuid, target_names[t],
						monitor_names[m], np.items[t][m].threshold,
						np.items[t][m].count, np.items[t][m].period);
	}
	pthread_mutex_unlock(&p->lock);
	return 0;
}

bool continuous_policies_get(struct continuous_policies *p, const char *service,
			     struct continuous_policy *out)
{
	struct continuous_policy *c;

	pthread_mutex_lock(&p->lock);
	c = find(p, service);
	if (c) {
		*out = *c;
		/* the strings stay the store's: the copy is used only for its items */
		out->service = out->uuid = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	return c != NULL;
}

void continuous_policies_uuid(struct continuous_policies *p, const char *service, char *out,
			      size_t outlen)
{
	struct continuous_policy *c;

	pthread_mutex_lock(&p->lock);
	c = find(p, service);
	snprintf(out, outlen, "%s", c ? c->uuid : "");
	pthread_mutex_unlock(&p->lock);
}

/* /proc ------------------------------------------------------------------------------ */

int continuous_parse_stat(const char *buf, uint64_t *ticks, uint32_t *threads)
{
	const char *s = strrchr(buf, ')');
	unsigned long long v[18];
	int field = 3;

	if (!s)
		return -EINVAL;
	s++;
	/* fields 3.. after the name: state(3) ... utime(14) stime(15) ... num_threads(20) */
	while (field <= 20) {
		char *end;

		while (*s == ' ')
			s++;
		if (!*s)
			return -EINVAL;
		if (field == 3) {
			while (*s && *s != ' ')
				s++;
		} else {
			errno = 0;
			v[field - 3] = strtoull(s, &end, 10);
			if (end == s || errno)
				return -EINVAL;
			s = end;
		}
		field++;
	}
	*ticks = v[14 - 3] + v[15 - 3];
	*threads = v[20 - 3] > UINT32_MAX ? UINT32_MAX : (uint32_t)v[20 - 3];
	return 0;
}

int continuous_parse_loadavg(const char *buf, double *load1)
{
	char *end;

	errno = 0;
	*load1 = strtod(buf, &end);
	return end == buf || errno || !isfinite(*load1) || *load1 < 0 ? -EINVAL : 0;
}

double continuous_cpu_percent(uint64_t prev_ticks, uint64_t cur_ticks, long clk_tck,
			      uint64_t elapsed_ms)
{
	if (clk_tck <= 0 || !elapsed_ms || cur_ticks < prev_ticks)
		return 0;
	return (double)(cur_ticks - prev_ticks) * 100000.0 / ((double)clk_tck * (double)elapsed_ms);
}

/* Windows ------------------------------------------------------------------------------ */

void continuous_window_push(struct continuous_window *w, double v)
{
	w->v[w->head] = v;
	w->head = (w->head + 1) % CONTINUOUS_WINDOW_MAX;
	if (w->n < CONTINUOUS_WINDOW_MAX)
		w->n++;
}

static double nth_newest(const struct continuous_window *w, size_t i)
{
	return w->v[(w->head + CONTINUOUS_WINDOW_MAX - 1 - i) % CONTINUOUS_WINDOW_MAX];
}

double continuous_window_last(const struct continuous_window *w)
{
	return w->n ? nth_newest(w, 0) : 0;
}

bool continuous_window_fires(const struct continuous_window *w, double threshold, uint32_t period,
			     uint32_t count, double *current)
{
	uint32_t hits = 0;
	bool have = false;

	if (!period || !count || period > CONTINUOUS_WINDOW_MAX || w->n < period)
		return false;
	for (size_t i = 0; i < period; i++) {
		double v = nth_newest(w, i);

		if (v >= threshold) {
			if (!have && current)
				*current = v;
			have = true;
			hits++;
		}
	}
	return hits >= count;
}

bool continuous_trigger_push(struct continuous_policies *p, const struct continuous_trigger *t)
{
	bool ok;

	pthread_mutex_lock(&p->lock);
	ok = p->nr_triggers < CONTINUOUS_MAX_TRIGGERS;
	if (ok)
		p->triggers[p->nr_triggers++] = *t;
	pthread_mutex_unlock(&p->lock);
	return ok;
}

bool continuous_trigger_pop(struct continuous_policies *p, struct continuous_trigger *out)
{
	bool ok;

	pthread_mutex_lock(&p->lock);
	ok = p->nr_triggers > 0;
	if (ok) {
		*out = p->triggers[0];
		memmove(&p->triggers[0], &p->triggers[1], --p->nr_triggers * sizeof(*out));
	}
	pthread_mutex_unlock(&p->lock);
	return ok;
}
