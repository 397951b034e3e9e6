// SPDX-License-Identifier: GPL-2.0
/*
 * The pprof reader against corrupt and hostile files: garbage, truncated
 * gzip at every length, random bit flips in the protobuf, and well-formed
 * protobufs that break pprof's rules (string indices, ids, references,
 * value counts). Each must give an error message, never a crash (ASan).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

#include <cmocka.h>

#include "output/output.h"
#include "output/pprof_read.h"
#include "profile.pb-c.h"
#include "profile/view.h"
#include "view_fixture.h"

typedef Perftools__Profiles__Profile PbProfile;

/* The fixture profile as gzip bytes and as raw protobuf bytes. */
static uint8_t *gz, *raw;
static size_t gz_len, raw_len;

static int setup(void **state)
{
	struct view *v = vf_make(PROFILE_ONCPU);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uLongf rl = 1 << 20;

	(void)state;
	if (!f || output_pprof_write(v, f))
		return -1;
	fclose(f);
	view_free(v);
	free(v);
	gz = (uint8_t *)buf;
	gz_len = len;
	raw = malloc(rl);
	/* uncompress() wants zlib framing; inflate the gzip by hand. */
	{
		z_stream z = { 0 };

		inflateInit2(&z, 15 + 16);
		z.next_in = gz;
		z.avail_in = (uInt)gz_len;
		z.next_out = raw;
		z.avail_out = (uInt)rl;
		if (inflate(&z, Z_FINISH) != Z_STREAM_END)
			return -1;
		raw_len = z.total_out;
		inflateEnd(&z);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(gz);
	free(raw);
	return 0;
}

static int read_buf(const uint8_t *b, size_t n, char *err, size_t errlen)
{
	struct view *v = NULL;
	int r = pprof_read_buffer(b, n, &v, err, errlen);

	if (!r) {
		assert_non_null(v);
		view_free(v);
		free(v);
	} else {
		assert_null(v);
		assert_true(err[0] != '\0');
	}
	return r;
}

static void test_valid(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(read_buf(gz, gz_len, err, sizeof(err)), 0);
	/* Uncompressed pprof is accepted too, as go tool pprof does. */
	assert_int_equal(read_buf(raw, raw_len, err, sizeof(err)), 0);
}

static void test_garbage(void **state)
{
	static const uint8_t junk[] = "this is not a profile at all\xff\xff\xff\xff";
	static const uint8_t badgz[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xde, 0xad };
	char err[256];

	(void)state;
	assert_int_equal(read_buf(junk, sizeof(junk), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a pprof profile"));
	assert_int_equal(read_buf(badgz, sizeof(badgz), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "gzip"));
	assert_int_equal(read_buf((const uint8_t *)"", 0, err, sizeof(err)), -EINVAL);
}

static void test_truncated_gzip(void **state)
{
	char err[256];

	(void)state;
	for (size_t n = 0; n < gz_len; n++)
		assert_int_not_equal(read_buf(gz, n, err, sizeof(err)), 0);
}

/* Truncated or bit-flipped protobuf: decoding may even succeed (a prefix
 * can be a valid message), but must never crash or accept broken refs. */
static void test_mutations(void **state)
{
	uint8_t *m = malloc(raw_len);
	uint32_t x = 2463534242U;
	char err[256];

	(void)state;
	for (size_t n = 0; n < raw_len; n++)
		read_buf(raw, n, err, sizeof(err));
	for (int i = 0; i < 3000; i++) {
		memcpy(m, raw, raw_len);
		for (int k = 0; k < 1 + i % 4; k++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			m[x % raw_len] ^= (uint8_t)(1u << (x >> 29));
		}
		read_buf(m, raw_len, err, sizeof(err));
	}
	free(m);
}

/* Unpack the fixture, let fn break a rule, repack, expect msg. */
static void expect_rejected(void (*fn)(PbProfile *), const char *msg)
{
	PbProfile *pb = perftools__profiles__profile__unpack(NULL, raw_len, raw);
	uint8_t *buf;
	size_t len;
	char err[256] = "";

	assert_non_null(pb);
	fn(pb);
	len = perftools__profiles__profile__get_packed_size(pb);
	buf = malloc(len + 1);
	perftools__profiles__profile__pack(pb, buf);
	assert_int_equal(read_buf(buf, len, err, sizeof(err)), -EINVAL);
	if (!strstr(err, msg))
		fail_msg("error '%s' does not mention '%s'", err, msg);
	free(buf);
	perftools__profiles__profile__free_unpacked(pb, NULL);
}

static void break_str0(PbProfile *pb)
{
	/* Swap strings 0 and 1: both stay owned by the message. */
	char *t = pb->string_table[0];

	pb->string_table[0] = pb->string_table[1];
	pb->string_table[1] = t;
}

static void break_func_name(PbProfile *pb)
{
	pb->function[0]->name = (int64_t)pb->n_string_table + 5;
}

static void break_dup_location(PbProfile *pb)
{
	pb->location[1]->id = pb->location[0]->id;
}

static void break_zero_mapping(PbProfile *pb)
{
	pb->mapping[0]->id = 0;
}

static void break_line_function(PbProfile *pb)
{
	pb->location[0]->line[0]->function_id = 9999;
}

static void break_sample_location(PbProfile *pb)
{
	pb->sample[0]->location_id[0] = 4242;
}

static void break_location_mapping(PbProfile *pb)
{
	pb->location[0]->mapping_id = 77;
}

static void break_values(PbProfile *pb)
{
	pb->sample[1]->n_value = 1;
}

static void break_negative(PbProfile *pb)
{
	pb->sample[2]->value[0] = -5;
}

static void break_label(PbProfile *pb)
{
	pb->sample[0]->label[0]->key = -1;
}

static void break_sample_types(PbProfile *pb)
{
	pb->sample_type[1]->unit = 1 << 30;
}

static void test_rule_violations(void **state)
{
	(void)state;
	expect_rejected(break_str0, "string_table[0]");
	expect_rejected(break_func_name, "function 1: string index");
	expect_rejected(break_dup_location, "location ids");
	expect_rejected(break_zero_mapping, "mapping ids");
	expect_rejected(break_line_function, "unknown function 9999");
	expect_rejected(break_sample_location, "unknown location 4242");
	expect_rejected(break_location_mapping, "unknown mapping 77");
	expect_rejected(break_values, "values for 2 sample types");
	expect_rejected(break_negative, "negative value");
	expect_rejected(break_label, "label string");
	expect_rejected(break_sample_types, "sample type string");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_truncated_gzip),	cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_rule_violations),
	};

	return cmocka_run_group_tests_name("pprof_read", tests, setup, teardown);
}
