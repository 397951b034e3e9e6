/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The OAP's identifiers, reproduced on the agent (IDManager in the OAP):
 *
 *   serviceId  = base64(service) + ".1"
 *   instanceId = serviceId + "_" + base64(instance)
 *   processId  = hex(sha256(process + "_" + instanceId))
 *
 * with blank names replaced by "_blank" and service and instance names cut
 * to 70 characters, as reportProcesses does. The OAP's answer is what the
 * agent uses; this is the cross-check (a mismatch is logged) and what the
 * tests compare against.
 */
#ifndef SKYPROF_AGENT_ENTITY_H
#define SKYPROF_AGENT_ENTITY_H

#include <stddef.h>

#define ENTITY_NAME_MAX 70 /* SW_SERVICE_NAME_MAX_LENGTH, SW_INSTANCE_NAME_MAX_LENGTH */
#define ENTITY_ID_LEN	64 /* sha256 in hex */

/* out: at least 4 * ceil(len/3) + 3 bytes; returns out. */
char *entity_service_id(const char *service, char *out, size_t outlen);
char *entity_instance_id(const char *service, const char *instance, char *out, size_t outlen);
/* out: ENTITY_ID_LEN + 1 bytes. */
char *entity_process_id(const char *service, const char *instance, const char *process,
			char out[ENTITY_ID_LEN + 1]);

#endif
