/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of gRPC-over-HTTP/2 that are pure byte and string handling, kept
 * apart from the connection so they are unit-tested (and fuzzable) alone:
 * the 5-byte length-prefixed message framing, the grpc-status and
 * grpc-message trailers, the grpc-timeout header, and the status names.
 */
#ifndef SKYPROF_GRPC_FRAME_H
#define SKYPROF_GRPC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The gRPC status codes (the numbers are the wire contract). */
enum grpc_code {
	GRPC_OK = 0,
	GRPC_CANCELLED = 1,
	GRPC_UNKNOWN = 2,
	GRPC_INVALID_ARGUMENT = 3,
	GRPC_DEADLINE_EXCEEDED = 4,
	GRPC_NOT_FOUND = 5,
	GRPC_ALREADY_EXISTS = 6,
	GRPC_PERMISSION_DENIED = 7,
	GRPC_RESOURCE_EXHAUSTED = 8,
	GRPC_FAILED_PRECONDITION = 9,
	GRPC_ABORTED = 10,
	GRPC_OUT_OF_RANGE = 11,
	GRPC_UNIMPLEMENTED = 12,
	GRPC_INTERNAL = 13,
	GRPC_UNAVAILABLE = 14,
	GRPC_DATA_LOSS = 15,
	GRPC_UNAUTHENTICATED = 16,
};

#define GRPC_FRAME_HDR 5
/* The OAP's default inbound limit (SW_CORE_GRPC_MAX_MESSAGE_SIZE): what we send at most. */
#define GRPC_MAX_MESSAGE (50u << 20)
/*
 * What we accept in an answer: gRPC's default receive limit (what rover gets
 * from grpc-go). The OAP's answers are Commands and process lists of a few
 * KiB; a larger one is refused (RESOURCE_EXHAUSTED) rather than held.
 */
#define GRPC_MAX_RESPONSE (4u << 20)
/* A message's buffer starts at this and doubles as its bytes arrive. */
#define GRPC_READER_CHUNK (16u << 10)

/* "PERMISSION_DENIED"; "UNKNOWN_CODE" for numbers outside the table. */
const char *grpc_frame_code_name(int code);

/* Write the prefix of an uncompressed message of len bytes into hdr. */
void grpc_frame_header(uint8_t hdr[GRPC_FRAME_HDR], uint32_t len);

/*
 * Incremental reader of a DATA byte stream into messages: feed it chunks as
 * they arrive, in any split. Keeps only the first complete message (a unary
 * or client-streaming response has exactly one) and counts the rest.
 */
struct grpc_reader {
	uint8_t hdr[GRPC_FRAME_HDR];
	size_t hdr_have;
	uint8_t *buf;	   /* current message, malloc'ed (cap bytes) */
	size_t need, have; /* length from the prefix, bytes so far */
	size_t cap;
	bool in_body;
	uint8_t *first; /* the first complete message, or NULL */
	size_t first_len;
	bool got_first;
	unsigned int extra; /* complete messages after the first */
	int error;	    /* sticky: -EPROTO (compressed), -EMSGSIZE, -ENOMEM */
};

/* A message longer than GRPC_MAX_RESPONSE is -EMSGSIZE. */
void grpc_frame_reader_init(struct grpc_reader *r);
void grpc_frame_reader_free(struct grpc_reader *r);
/* 0 or the sticky error. */
int grpc_frame_reader_feed(struct grpc_reader *r, const uint8_t *data, size_t len);
/* Whether the stream ended on a message boundary. */
bool grpc_frame_reader_complete(const struct grpc_reader *r);

/* "0".."16" -> code; -EINVAL for anything else (empty, sign, junk, >2 digits). */
int grpc_frame_parse_status(const char *s, size_t len);

/*
 * Percent-decode a grpc-message value into out (always NUL terminated,
 * truncated to outlen - 1). Malformed escapes are copied as they are, as the
 * spec asks of receivers.
 */
void grpc_frame_decode_message(const char *s, size_t len, char *out, size_t outlen);

/* A grpc-timeout value for ms milliseconds ("1500m", at most 8 digits). */
void grpc_frame_format_timeout(uint64_t ms, char *out, size_t outlen);

/*
 * The status a response without grpc-status stands for, from its HTTP
 * status (the gRPC spec's HTTP-to-gRPC table).
 */
int grpc_frame_code_from_http(int http_status);

#endif
