// SPDX-License-Identifier: GPL-2.0
/* The OAP's id formulas; see entity.h. */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "agent/entity.h"

/* What the OAP hashes for a name: "_blank" for empty, else at most 70 chars. */
static void name_of(const char *s, char *out, size_t outlen)
{
	snprintf(out, outlen, "%.*s", ENTITY_NAME_MAX, s && *s ? s : "_blank");
}

static void b64(const char *s, char *out, size_t outlen)
{
	unsigned char buf[4 * ((ENTITY_NAME_MAX + 2) / 3) + 1];
	int n = EVP_EncodeBlock(buf, (const unsigned char *)s, (int)strlen(s));

	snprintf(out, outlen, "%.*s", n, (const char *)buf);
}

char *entity_service_id(const char *service, char *out, size_t outlen)
{
	char name[ENTITY_NAME_MAX + 1], enc[128];

	name_of(service, name, sizeof(name));
	b64(name, enc, sizeof(enc));
	snprintf(out, outlen, "%s.1", enc);
	return out;
}

char *entity_instance_id(const char *service, const char *instance, char *out, size_t outlen)
{
	char sid[128], name[ENTITY_NAME_MAX + 1], enc[128];

	entity_service_id(service, sid, sizeof(sid));
	name_of(instance, name, sizeof(name));
	b64(name, enc, sizeof(enc));
	snprintf(out, outlen, "%s_%s", sid, enc);
	return out;
}

char *entity_process_id(const char *service, const char *instance, const char *process,
			char out[ENTITY_ID_LEN + 1])
{
	char iid[256];
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	const char *p = process && *process ? process : "_blank";

	entity_instance_id(service, instance, iid, sizeof(iid));
	out[0] = 0;
	if (!ctx)
		return out;
	/* The process name is not truncated by the OAP. */
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) && EVP_DigestUpdate(ctx, p, strlen(p)) &&
	    EVP_DigestUpdate(ctx, "_", 1) && EVP_DigestUpdate(ctx, iid, strlen(iid)) &&
	    EVP_DigestFinal_ex(ctx, md, &mdlen))
		for (unsigned int i = 0; i < mdlen && i < ENTITY_ID_LEN / 2; i++)
			snprintf(out + 2 * i, 3, "%02x", md[i]);
	EVP_MD_CTX_free(ctx);
	return out;
}
