/*
 * fz_profile.c - one profile file's bytes, checked as profiles_load()
 * checks each file of policies/ (profile_from_text(), policy_xml.c),
 * against the schema loaded once with the real profiles.
 *
 * Properties: a rejection is -EINVAL with a message naming the file; an
 * accepted profile has every field in range and sets all of them (a
 * profile must: the walk refuses a missing field).
 */
#include <errno.h>

#include "host/policy_xml.h"
#include "policy_check.h"

static struct vp_profiles *profiles;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	profiles = fz_load_profiles("fz_profile");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vp_policy pol;
	char err[512];
	int r;

	/* the bytes as read from a file: no NUL added, none needed */
	r = profile_from_text(profiles, (const char *)data, size, &pol, err,
	    sizeof(err));
	if (r < 0) {
		FZ_CHECK(r == -EINVAL || r == -ENOMEM, "returned %d", r);
		FZ_CHECK(r != -EINVAL || !strncmp(err, "profile", 7),
		    "rejected without naming the file: '%s'", err);
		return 0;
	}
	FZ_CHECK(r == 0, "returned %d", r);
	fz_check_policy(&pol);
	return 0;
}
