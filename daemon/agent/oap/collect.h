/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The upload queue's batches, each one client stream to its collect
 * method (EBPFProfilingService/collectProfilingData,
 * MeterReportService/collect).
 */
#ifndef SKYPROF_AGENT_OAP_COLLECT_H
#define SKYPROF_AGENT_OAP_COLLECT_H

#include <stdbool.h>

struct agent_oap;
struct upload_batch;

/*
 * Send one batch; false when the OAP failed. Delivery is at most once per
 * message: a batch goes again only when none of it can have reached the
 * OAP (no connection, or refused unread); after a stream broke with some
 * messages written, those are counted as unconfirmed and only the rest goes
 * again (queue_unconfirmed).
 */
bool collect_send_batch(struct agent_oap *o, struct upload_batch *b);

#endif
