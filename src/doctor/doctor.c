/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The doctor's check registry (checks.def), its run, and its findings as
 * text and as the fingerprint's "doctor" section. */
#include "core/compat.h"
#include "core/registry.h"
#include "doctor/doctor.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define UL_DOCTOR_CHECK(file, ident) extern const struct ul_doctor_check ul_doctor_check_##ident;
#include "doctor/checks.def"
#undef UL_DOCTOR_CHECK

static const struct ul_doctor_check *const checks[] = {
#define UL_DOCTOR_CHECK(file, ident) &ul_doctor_check_##ident,
#include "doctor/checks.def"
#undef UL_DOCTOR_CHECK
	NULL,
};
_Static_assert(UL_ARRAY_SIZE(checks) - 1 <= UL_DOCTOR_MAX_FINDINGS,
	       "checks.def lists more checks than UL_DOCTOR_MAX_FINDINGS");

UL_REGISTRY_INDEX(struct ul_doctor_check, ul_doctor_check, checks)

int ul_doctor_run(const struct ul_doctor_opts *o, struct ul_doctor_report *r)
{
	int rc;

	memset(r, 0, sizeof(*r));
	rc = ul_doctor_sample(o->window_ns, &r->sample);
	if (rc)
		return rc;
	for (size_t i = 0; i < ul_doctor_check_count(); i++) {
		struct ul_doctor_finding *f = &r->f[r->n++];

		f->check = checks[i]->name;
		f->severity = UL_DOCTOR_INFO;
		checks[i]->check(o, &r->sample, f);
		if (f->severity > r->worst)
			r->worst = f->severity;
	}
	return 0;
}

const char *ul_doctor_severity_name(enum ul_doctor_severity s)
{
	static const char *const names[] = { "info", "warn", "blocker" };

	return (unsigned)s < UL_ARRAY_SIZE(names) ? names[s] : "unknown";
}

void ul_doctor_finding_text(const struct ul_doctor_finding *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %s%s%s", ul_doctor_severity_name(f->severity), f->what,
		 f->todo[0] ? "; " : "", f->todo);
}

json_t *ul_doctor_json(const struct ul_doctor_report *r)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < r->n; i++) {
		char text[600];

		ul_doctor_finding_text(&r->f[i], text, sizeof(text));
		if (json_object_set_new(o, r->f[i].check, json_string(text))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

int ul_doctor_print(FILE *out, const struct ul_doctor_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		fprintf(out, "%-7s  %-13s %s%s%s\n", ul_doctor_severity_name(r->f[i].severity),
			r->f[i].check, r->f[i].what, r->f[i].todo[0] ? "; " : "", r->f[i].todo);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

const json_t *ul_doctor_stored(const json_t *fingerprint)
{
	const json_t *d = json_object_get(fingerprint, "doctor");

	return json_is_object(d) ? d : NULL;
}

enum ul_doctor_severity ul_doctor_text_severity(const char *text)
{
	for (int s = UL_DOCTOR_BLOCKER; s > UL_DOCTOR_INFO; s--) {
		const char *name = ul_doctor_severity_name((enum ul_doctor_severity)s);
		size_t n = strlen(name);

		if (!strncmp(text, name, n) && text[n] == ':')
			return (enum ul_doctor_severity)s;
	}
	return UL_DOCTOR_INFO;
}
