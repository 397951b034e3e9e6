// SPDX-License-Identifier: GPL-2.0
/* gRPC message framing, trailers and status handling (grpc/frame.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grpc/frame.h"

static void header_is_big_endian(void **state)
{
	uint8_t h[5];

	(void)state;
	grpc_frame_header(h, 0x01020304);
	assert_memory_equal(h, "\x00\x01\x02\x03\x04", 5);
	grpc_frame_header(h, 0);
	assert_memory_equal(h, "\x00\x00\x00\x00\x00", 5);
}

/* Two messages and an empty one, fed one byte at a time and all at once. */
static void reader_any_split(void **state)
{
	static const uint8_t stream[] = { 0, 0, 0, 0, 3, 'a', 'b', 'c', 0,  0,
					  0, 0, 0, 0, 0, 0,   0,   1,	'z' };
	(void)state;
	for (size_t chunk = 1; chunk <= sizeof(stream); chunk++) {
		struct grpc_reader r;

		grpc_frame_reader_init(&r);
		for (size_t off = 0; off < sizeof(stream); off += chunk) {
			size_t n = sizeof(stream) - off < chunk ? sizeof(stream) - off : chunk;

			assert_int_equal(grpc_frame_reader_feed(&r, stream + off, n), 0);
		}
		assert_true(r.got_first);
		assert_int_equal(r.first_len, 3);
		assert_memory_equal(r.first, "abc", 3);
		assert_int_equal(r.extra, 2);
		assert_true(grpc_frame_reader_complete(&r));
		grpc_frame_reader_free(&r);
	}
}

static void reader_truncated_and_empty(void **state)
{
	struct grpc_reader r;

	(void)state;
	grpc_frame_reader_init(&r);
	assert_int_equal(grpc_frame_reader_feed(&r,
					  (const uint8_t *)"\0\0\0\0\x05"
							   "ab",
					  7),
			 0);
	assert_false(grpc_frame_reader_complete(&r));
	assert_false(r.got_first);
	grpc_frame_reader_free(&r);

	grpc_frame_reader_init(&r);
	assert_int_equal(grpc_frame_reader_feed(&r, (const uint8_t *)"\0\0\0", 3), 0);
	assert_false(grpc_frame_reader_complete(&r)); /* inside a prefix */
	grpc_frame_reader_free(&r);

	grpc_frame_reader_init(&r);
	assert_true(grpc_frame_reader_complete(&r)); /* no message at all */
	assert_int_equal(grpc_frame_reader_feed(&r, (const uint8_t *)"\0\0\0\0\0", 5), 0);
	assert_true(r.got_first);
	assert_int_equal(r.first_len, 0);
	assert_non_null(r.first);
	grpc_frame_reader_free(&r);
}

static void reader_rejects_compressed_and_huge(void **state)
{
	struct grpc_reader r;

	(void)state;
	grpc_frame_reader_init(&r);
	assert_int_equal(grpc_frame_reader_feed(&r, (const uint8_t *)"\x01\0\0\0\x01x", 6), -EPROTO);
	/* sticky */
	assert_int_equal(grpc_frame_reader_feed(&r, (const uint8_t *)"\0\0\0\0\0", 5), -EPROTO);
	assert_false(grpc_frame_reader_complete(&r));
	grpc_frame_reader_free(&r);

	grpc_frame_reader_init(&r);
	assert_int_equal(grpc_frame_reader_feed(&r, (const uint8_t *)"\0\x7f\xff\xff\xff", 5), -EMSGSIZE);
	grpc_frame_reader_free(&r);
}

/*
 * An answer's length prefix is the peer's claim: a 5-byte header naming
 * megabytes must not allocate them (it did: malloc(length) up front), the
 * limit is gRPC's 4 MiB receive default, and messages after the first are
 * skipped, never held (found by the grpc fuzz target: 800 executions/s,
 * each five bytes of input a malloc of up to 50 MiB).
 */
static void reader_allocates_as_data_arrives(void **state)
{
	uint8_t hdr[GRPC_FRAME_HDR], *chunk = malloc(256 << 10);
	struct grpc_reader r;

	(void)state;
	assert_non_null(chunk);
	memset(chunk, 'x', 256 << 10);
	grpc_frame_reader_init(&r);
	grpc_frame_header(hdr, GRPC_MAX_RESPONSE + 1);
	assert_int_equal(grpc_frame_reader_feed(&r, hdr, sizeof(hdr)), -EMSGSIZE);
	assert_null(r.buf);
	grpc_frame_reader_free(&r);

	/* exactly the limit: accepted, grown as it arrives */
	grpc_frame_reader_init(&r);
	grpc_frame_header(hdr, GRPC_MAX_RESPONSE);
	assert_int_equal(grpc_frame_reader_feed(&r, hdr, sizeof(hdr)), 0);
	assert_true(r.cap <= GRPC_READER_CHUNK + 1);
	assert_int_equal(grpc_frame_reader_feed(&r, chunk, 100 << 10), 0);
	assert_true(r.cap >= 100 << 10 && r.cap <= 2 * (100 << 10)); /* doubled, not the claim */
	for (size_t have = 100 << 10; have < GRPC_MAX_RESPONSE;) {
		size_t n = GRPC_MAX_RESPONSE - have < (256 << 10) ? GRPC_MAX_RESPONSE - have
								  : 256 << 10;

		assert_int_equal(grpc_frame_reader_feed(&r, chunk, n), 0);
		have += n;
	}
	assert_true(r.got_first);
	assert_int_equal(r.first_len, GRPC_MAX_RESPONSE);
	assert_int_equal(r.first[GRPC_MAX_RESPONSE - 1], 'x');

	/* a second message is counted, its bytes not kept */
	grpc_frame_header(hdr, 3 << 20);
	assert_int_equal(grpc_frame_reader_feed(&r, hdr, sizeof(hdr)), 0);
	assert_null(r.buf);
	for (int i = 0; i < 12; i++)
		assert_int_equal(grpc_frame_reader_feed(&r, chunk, 256 << 10), 0);
	assert_null(r.buf);
	assert_int_equal(r.extra, 1);
	assert_true(grpc_frame_reader_complete(&r));
	grpc_frame_reader_free(&r);
	free(chunk);
}

static void status_parsing(void **state)
{
	(void)state;
	assert_int_equal(grpc_frame_parse_status("0", 1), 0);
	assert_int_equal(grpc_frame_parse_status("7", 1), GRPC_PERMISSION_DENIED);
	assert_int_equal(grpc_frame_parse_status("16", 2), GRPC_UNAUTHENTICATED);
	assert_int_equal(grpc_frame_parse_status("17", 2), -EINVAL);
	assert_int_equal(grpc_frame_parse_status("", 0), -EINVAL);
	assert_int_equal(grpc_frame_parse_status("-1", 2), -EINVAL);
	assert_int_equal(grpc_frame_parse_status("1x", 2), -EINVAL);
	assert_int_equal(grpc_frame_parse_status("007", 3), -EINVAL);
	/* the length counts, not a terminator */
	assert_int_equal(grpc_frame_parse_status("14junk", 2), GRPC_UNAVAILABLE);
	assert_string_equal(grpc_frame_code_name(GRPC_RESOURCE_EXHAUSTED), "RESOURCE_EXHAUSTED");
	assert_string_equal(grpc_frame_code_name(99), "UNKNOWN_CODE");
	assert_string_equal(grpc_frame_code_name(-1), "UNKNOWN_CODE");
}

static void message_percent_decoding(void **state)
{
	char out[32];

	(void)state;
	grpc_frame_decode_message("wrong%20token", 13, out, sizeof(out));
	assert_string_equal(out, "wrong token");
	grpc_frame_decode_message("100%25 %E2%82%AC", 16, out, sizeof(out));
	assert_string_equal(out, "100% \xe2\x82\xac");
	/* malformed escapes pass through as they are */
	grpc_frame_decode_message("a%zz%4", 6, out, sizeof(out));
	assert_string_equal(out, "a%zz%4");
	grpc_frame_decode_message("abcdef", 6, out, 4);
	assert_string_equal(out, "abc");
	grpc_frame_decode_message("%00x", 4, out, sizeof(out));
	assert_int_equal(out[0], 0);
}

static void timeout_and_http_fallback(void **state)
{
	char out[24];

	(void)state;
	grpc_frame_format_timeout(10000, out, sizeof(out));
	assert_string_equal(out, "10000m");
	grpc_frame_format_timeout(100000000ull, out, sizeof(out));
	assert_string_equal(out, "100000S");
	assert_int_equal(grpc_frame_code_from_http(404), GRPC_UNIMPLEMENTED);
	assert_int_equal(grpc_frame_code_from_http(503), GRPC_UNAVAILABLE);
	assert_int_equal(grpc_frame_code_from_http(401), GRPC_UNAUTHENTICATED);
	assert_int_equal(grpc_frame_code_from_http(403), GRPC_PERMISSION_DENIED);
	assert_int_equal(grpc_frame_code_from_http(500), GRPC_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_is_big_endian),
		cmocka_unit_test(reader_any_split),
		cmocka_unit_test(reader_truncated_and_empty),
		cmocka_unit_test(reader_rejects_compressed_and_huge),
		cmocka_unit_test(reader_allocates_as_data_arrives),
		cmocka_unit_test(status_parsing),
		cmocka_unit_test(message_percent_decoding),
		cmocka_unit_test(timeout_and_http_fallback),
	};

	return cmocka_run_group_tests_name("grpc_frame", tests, NULL, NULL);
}
