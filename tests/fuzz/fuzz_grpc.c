// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the bytes a gRPC response carries before anything
 * decodes them as protobuf: the DATA stream (length-prefixed messages,
 * fed in chunks whose sizes come from the input itself, as the network
 * splits them), the grpc-status and grpc-message trailers.
 *
 * Build and run: make fuzz FUZZ_TARGETS=grpc (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grpc/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct grpc_reader r;
	char msg[64];
	size_t off = 0;
	int code;

	grpc_frame_reader_init(&r);
	while (off < size) {
		size_t chunk = 1 + data[off] % 17;

		if (chunk > size - off)
			chunk = size - off;
		grpc_frame_reader_feed(&r, data + off, chunk);
		off += chunk;
	}
	/* What the reader kept must be what it claims. */
	if (r.got_first && (!r.first || r.first_len > size))
		abort();
	if (r.got_first && r.first_len)
		(void)memchr(r.first, 0x100 - 1, r.first_len);
	if (!r.error && r.need > GRPC_MAX_RESPONSE)
		abort(); /* a length over the limit is an error before any allocation */
	grpc_frame_reader_complete(&r);
	grpc_frame_reader_free(&r);
	code = grpc_frame_parse_status((const char *)data, size < 4 ? size : 4);
	if (code > 16)
		abort();
	grpc_frame_decode_message((const char *)data, size, msg, sizeof(msg));
	if (strlen(msg) >= sizeof(msg))
		abort();
	return 0;
}
