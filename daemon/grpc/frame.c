// SPDX-License-Identifier: GPL-2.0
/*
 * gRPC message framing and trailer parsing; see frame.h. Everything
 * here reads bytes from the network, so nothing trusts a length before it
 * is checked against GRPC_MAX_MESSAGE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grpc/frame.h"

static const char *const code_names[] = {
	"OK",
	"CANCELLED",
	"UNKNOWN",
	"INVALID_ARGUMENT",
	"DEADLINE_EXCEEDED",
	"NOT_FOUND",
	"ALREADY_EXISTS",
	"PERMISSION_DENIED",
	"RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION",
	"ABORTED",
	"OUT_OF_RANGE",
	"UNIMPLEMENTED",
	"INTERNAL",
	"UNAVAILABLE",
	"DATA_LOSS",
	"UNAUTHENTICATED",
};

const char *grpc_frame_code_name(int code)
{
	if (code < 0 || code >= (int)(sizeof(code_names) / sizeof(code_names[0])))
		return "UNKNOWN_CODE";
	return code_names[code];
}

void grpc_frame_header(uint8_t hdr[GRPC_FRAME_HDR], uint32_t len)
{
	hdr[0] = 0; /* not compressed: we never negotiate grpc-encoding */
	hdr[1] = (uint8_t)(len >> 24);
	hdr[2] = (uint8_t)(len >> 16);
	hdr[3] = (uint8_t)(len >> 8);
	hdr[4] = (uint8_t)len;
}

void grpc_frame_reader_init(struct grpc_reader *r)
{
	memset(r, 0, sizeof(*r));
}

void grpc_frame_reader_free(struct grpc_reader *r)
{
	free(r->buf);
	free(r->first);
	memset(r, 0, sizeof(*r));
}

static void message_done(struct grpc_reader *r)
{
	if (!r->got_first) {
		r->first = r->buf;
		r->first_len = r->have;
		r->got_first = true;
	} else {
		free(r->buf);
		r->extra++;
	}
	r->buf = NULL;
	r->need = r->have = r->cap = 0;
	r->in_body = false;
	r->hdr_have = 0;
}

int grpc_frame_reader_feed(struct grpc_reader *r, const uint8_t *data, size_t len)
{
	while (len && !r->error) {
		if (!r->in_body) {
			size_t n = GRPC_FRAME_HDR - r->hdr_have;

			if (n > len)
				n = len;
			memcpy(r->hdr + r->hdr_have, data, n);
			r->hdr_have += n;
			data += n;
			len -= n;
			if (r->hdr_have < GRPC_FRAME_HDR)
				break;
			if (r->hdr[0] != 0) {
				/* We send no grpc-accept-encoding, so a compressed reply is a
				 * protocol error, not something to guess at. */
				r->error = -EPROTO;
				break;
			}
			r->need = (size_t)r->hdr[1] << 24 | (size_t)r->hdr[2] << 16 |
				  (size_t)r->hdr[3] << 8 | r->hdr[4];
			if (r->need > GRPC_MAX_RESPONSE) {
				r->error = -EMSGSIZE;
				break;
			}
			r->have = 0;
			/*
			 * The prefix is the peer's claim, not data: start small and
			 * grow as the bytes arrive, so five bytes cannot make us
			 * allocate megabytes. +1: a zero-length message still gets
			 * a non-NULL buffer. Messages after the first are only
			 * counted: their bytes are skipped, never held.
			 */
			if (!r->got_first) {
				r->cap = (r->need < GRPC_READER_CHUNK ? r->need
								      : GRPC_READER_CHUNK) +
					 1;
				r->buf = malloc(r->cap);
				if (!r->buf) {
					r->error = -ENOMEM;
					break;
				}
			}
			r->in_body = true;
			if (!r->need)
				message_done(r);
			continue;
		}
		size_t n = r->need - r->have;

		if (n > len)
			n = len;
		if (!r->buf) {
			/* a message after the first: skipped */
		} else if (r->have + n > r->cap) {
			size_t cap = r->cap;
			uint8_t *nb;

			while (cap < r->have + n)
				cap *= 2;
			if (cap > r->need + 1)
				cap = r->need + 1;
			nb = realloc(r->buf, cap);
			if (!nb) {
				r->error = -ENOMEM;
				break;
			}
			r->buf = nb;
			r->cap = cap;
		}
		if (r->buf)
			memcpy(r->buf + r->have, data, n);
		r->have += n;
		data += n;
		len -= n;
		if (r->have == r->need)
			message_done(r);
	}
	return r->error;
}

bool grpc_frame_reader_complete(const struct grpc_reader *r)
{
	return !r->error && !r->in_body && r->hdr_have == 0;
}

int grpc_frame_parse_status(const char *s, size_t len)
{
	int v = 0;

	if (!len || len > 2)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	return v <= GRPC_UNAUTHENTICATED ? v : -EINVAL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void grpc_frame_decode_message(const char *s, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	if (!outlen)
		return;
	for (size_t i = 0; i < len && o + 1 < outlen; i++) {
		int hi, lo;

		if (s[i] == '%' && i + 2 < len && (hi = hexval(s[i + 1])) >= 0 &&
		    (lo = hexval(s[i + 2])) >= 0) {
			out[o++] = (char)(hi << 4 | lo);
			i += 2;
			continue;
		}
		out[o++] = s[i];
	}
	out[o] = 0;
}

void grpc_frame_format_timeout(uint64_t ms, char *out, size_t outlen)
{
	/* At most 8 digits per the spec: switch to seconds, then minutes. */
	if (ms <= 99999999ull)
		snprintf(out, outlen, "%llum", (unsigned long long)ms);
	else if (ms / 1000 <= 99999999ull)
		snprintf(out, outlen, "%lluS", (unsigned long long)(ms / 1000));
	else
		snprintf(out, outlen, "%lluM", (unsigned long long)(ms / 60000 % 100000000ull));
}

int grpc_frame_code_from_http(int http_status)
{
	switch (http_status) {
	case 400:
		return GRPC_INTERNAL;
	case 401:
		return GRPC_UNAUTHENTICATED;
	case 403:
		return GRPC_PERMISSION_DENIED;
	case 404:
		return GRPC_UNIMPLEMENTED;
	case 429:
	case 502:
	case 503:
	case 504:
		return GRPC_UNAVAILABLE;
	default:
		return GRPC_UNKNOWN;
	}
}
