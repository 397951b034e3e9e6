// SPDX-License-Identifier: GPL-2.0
/* Sending the upload queue's batches; see collect.h. */
#include <stdint.h>
#include <stdlib.h>

#include "agent/config.h"
#include "agent/log.h"
#include "agent/oap/collect.h"
#include "agent/oap/state.h"
#include "agent/oap/rpc.h"
#include "agent/queue.h"
#include "grpc/call.h"
#include "grpc/frame.h"

bool collect_send_batch(struct agent_oap *o, struct upload_batch *b)
{
	struct grpc_msg *m = calloc(b->n ? b->n : 1, sizeof(*m));
	struct grpc_result res;
	/* A larger batch gets more time: 1 s per MiB on top of the call timeout. */
	uint32_t timeout = (uint32_t)(o->cfg->skyprof.call_timeout_ms + (b->bytes >> 20) * 1000);
	int rc;

	if (!m) {
		queue_return(o->queue, b);
		return false;
	}
	for (size_t i = 0; i < b->n; i++)
		m[i] = (struct grpc_msg){ b->msgs[i], b->lens[i] };
	rc = grpc_call(o->conn, b->path, m, b->n, timeout, &res);
	free(m);
	if (!rc && res.code == GRPC_OK) {
		grpc_call_result_free(&res);
		rpc_succeeded(o);
		log_debug("OAP: sent %s: %zu messages", b->what, b->n);
		queue_sent(o->queue, b);
		return true;
	}
	rpc_failed(o, b->what[0] ? b->what : "upload", rc, &res);
	grpc_call_result_free(&res);
	if (!rpc_nothing_stored(rc, &res)) {
		/* At most once: what went out may be stored already. */
		log_warn("OAP: %s: the stream broke after %zu of %zu messages were written: "
			 "those are counted as unconfirmed and not sent again%s",
			 b->what, res.msgs_sent, b->n,
			 res.msgs_sent < b->n ? "; the rest will be" : "");
		queue_unconfirmed(o->queue, b, res.msgs_sent);
		return false;
	}
	if (!rc && !rpc_code_is_transient(res.code) && b->attempts >= 2) {
		/* The OAP keeps refusing this data: resending it forever would stall
		 * everything behind it. */
		log_warn("OAP: giving up on %s after %u attempts: %zu messages dropped", b->what,
			 b->attempts + 1, b->n);
		queue_drop(o->queue, b);
		return false;
	}
	queue_return(o->queue, b);
	return false;
}
