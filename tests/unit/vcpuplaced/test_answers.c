/*
 * test_answers.c - the loop's side of the libvirt worker (libvirt.c and
 * answers.c) against a fake worker: the test holds the other end of the
 * channel and answers the loop's requests with the messages of
 * host/virt_msg.h, in orders and shapes a real worker would not choose.
 * No libvirt, no thread: what the loop makes of an answer is checked in
 * the daemon's state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <check.h>

#include "host/domain.h"
#include "vcpuplaced/daemon.h"
#include "../suites.h"
#include "../testutil.h"

struct fake {
	struct vp_daemon d;
	int fd;				/* the worker's end */
	unsigned char buf[VP_MSG_MAX];
	int maplen;
};

static const unsigned char uuid1[VP_UUID_LEN] = { 1, 2, 3, 4 };

static void
fake_setup(struct fake *f)
{
	char err[4096];
	int sp[2];

	memset(f, 0, sizeof(*f));
	f->d.virt = (struct vp_virt)VP_VIRT_INIT;
	f->d.topo = load_topo("g4dnmetal.xml");
	features_default(&f->d.feat);
	f->d.tick_ms = 250;
	f->d.uri = "fake:///";
	f->d.scx.opt = VP_SCX_OPT_OFF;
	ck_assert_msg(profiles_load("policies", &f->d.profiles, err,
	    sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK,
	    0, sp), 0);
	f->d.lv.fd = sp[0];
	f->fd = sp[1];
	f->d.lv.up = true;
	ck_assert_ptr_nonnull(f->d.lv.buf = malloc(VP_MSG_MAX));
	f->maplen = domain_maplen(f->d.topo);
}

static void
fake_teardown(struct fake *f)
{
	struct vp_lv_answer a;

	while (libvirt_next(&f->d, &a) > 0)
		;
	close(f->d.lv.fd);
	close(f->fd);
	snapshot_free(&f->d.lv.snap);
	free(f->d.lv.buf);
	tick_free(&f->d);
	inventory_free(&f->d);
	profiles_free(f->d.profiles);
	topo_free(f->d.topo);
}

/* The loop's next request, of type @type: its seq. */
static uint32_t
fake_request(struct fake *f, unsigned int type)
{
	struct vp_msg_hdr h;
	ssize_t r = virt_msg_recv(f->fd, f->buf, VP_MSG_TO_WORKER, 1);

	ck_assert_int_gt(r, 0);
	memcpy(&h, f->buf, sizeof(h));
	ck_assert_int_eq(h.type, type);
	return h.seq;
}

static void
fake_send(struct fake *f, unsigned int type, uint32_t seq, uint32_t n,
    const void *fixed, size_t fixed_len, const void *tail, size_t tail_len)
{
	ck_assert_int_eq(virt_msg_send(f->fd, type, seq, n, 0, fixed,
	    fixed_len, tail, tail_len, 1), 0);
}

static void
fake_connected(struct fake *f)
{
	struct vp_msg_state st = { .connected = 1, .opens = 1 };

	fake_send(f, VP_MSG_STATE, 0, 0, &st, sizeof(st), NULL, 0);
}

/* One running domain "vm1" with 2 vCPUs on OS CPUs @cpu0 and @cpu1. */
static void
fake_inventory(struct fake *f, uint32_t seq, int cpu0, int cpu1, int err)
{
	struct vp_msg_begin b = { .ndomains = 1 };
	struct vp_msg_domain dom = { .policy_err = -ENODATA,
	    .nova_err = -EAGAIN, .cputune_err = -EAGAIN };
	struct vp_msg_maps m = { .maplen = (uint32_t)f->maplen };
	size_t item = sizeof(struct vp_msg_vcpu) + (size_t)f->maplen;
	unsigned char tail[2 * (sizeof(struct vp_msg_vcpu) +
	    VP_MSG_MAPLEN_MAX)];
	struct vp_msg_end e = { .err = err };
	int cpu[2] = { cpu0, cpu1 }, k;

	strcpy(dom.info.name, "vm1");
	memcpy(dom.info.uuid, uuid1, VP_UUID_LEN);
	dom.info.nvcpus = 2;
	memcpy(m.uuid, uuid1, VP_UUID_LEN);
	memset(tail, 0, sizeof(tail));
	for (k = 0; k < 2; k++) {
		struct vp_msg_vcpu vc = { .cpu = cpu[k] };

		memcpy(tail + k * item, &vc, sizeof(vc));
		tail[k * item + sizeof(vc) + cpu[k] / 8] |=
		    (unsigned char)(1u << (cpu[k] % 8));
	}
	fake_send(f, VP_MSG_INV_BEGIN, seq, 0, &b, sizeof(b), NULL, 0);
	fake_send(f, VP_MSG_INV_DOMAIN, seq, 0, &dom, sizeof(dom), NULL, 0);
	fake_send(f, VP_MSG_INV_VCPUS, seq, 2, &m, sizeof(m), tail, 2 * item);
	fake_send(f, VP_MSG_INV_END, seq, 0, &e, sizeof(e), NULL, 0);
}

/* A refresh asked and answered with fake_inventory(). */
static unsigned int
refresh(struct fake *f, int cpu0, int cpu1, int err)
{
	uint32_t seq;

	ck_assert_int_eq(libvirt_refresh(&f->d, false), 0);
	seq = fake_request(f, VP_MSG_REFRESH);
	ck_assert_uint_eq(seq, f->d.lv.read_seq);
	fake_inventory(f, seq, cpu0, cpu1, err);
	return answers_take(&f->d);
}

static void
check_vcpu_on(const struct fake *f, int k, int cpu)
{
	const struct vp_vm *vm = inventory_vm_by_uuid(&f->d, uuid1);
	int pu = domain_pu_of_cpu(f->d.topo, cpu);

	ck_assert_ptr_nonnull(vm);
	ck_assert_int_eq(vm->nvcpus, 2);
	ck_assert_int_eq(cpuset_count(&vm->vcpu[k].affinity), 1);
	ck_assert(cpuset_test(&vm->vcpu[k].affinity, pu));
	ck_assert_int_eq(vm->vcpu[k].current, pu);
}

/*
 * A whole snapshot is adopted when its INV_END comes, not before; a read
 * that fails keeps the VMs as they were and is counted.
 */
START_TEST(test_snapshot_whole_or_not)
{
	struct fake f;
	unsigned int got;

	fake_setup(&f);
	fake_connected(&f);
	ck_assert_uint_eq(answers_take(&f.d), 0);
	ck_assert(libvirt_connected(&f.d));

	got = refresh(&f, 3, 5, 0);
	ck_assert_uint_eq(got, VP_LV_GOT_INVENTORY);
	ck_assert_int_eq(f.d.nvms, 1);
	ck_assert_str_eq(f.d.vm[0].name, "vm1");
	check_vcpu_on(&f, 0, 3);
	check_vcpu_on(&f, 1, 5);
	ck_assert(!libvirt_reading(&f.d));

	/* every part but the end: nothing changes yet */
	ck_assert_int_eq(libvirt_refresh(&f.d, false), 0);
	(void)fake_request(&f, VP_MSG_REFRESH);
	ck_assert_uint_eq(answers_take(&f.d), 0);
	ck_assert(libvirt_reading(&f.d));
	check_vcpu_on(&f, 0, 3);

	/* a failed read: the old inventory stays, one error counted */
	f.d.lv.read_seq = 0;	/* the one above is given up */
	got = refresh(&f, 7, 9, -EIO);
	ck_assert_uint_eq(got, 0);
	ck_assert_int_eq(f.d.nvms, 1);
	check_vcpu_on(&f, 0, 3);
	check_vcpu_on(&f, 1, 5);
	ck_assert_uint_eq(f.d.c.libvirt_errors, 1);
	ck_assert_int_eq(f.d.lv.done_err, -EIO);
	fake_teardown(&f);
}
END_TEST

/*
 * An answer to a request the loop no longer waits for is counted and
 * dropped; so is a datagram the size checks refuse.  Neither touches the
 * inventory.
 */
START_TEST(test_late_and_bad)
{
	struct fake f;
	struct vp_msg_end e = { 0 };
	struct vp_msg_hdr h = { .type = VP_MSG_INV_END, .len = 8, .seq = 1 };

	fake_setup(&f);
	fake_connected(&f);
	ck_assert_uint_eq(refresh(&f, 3, 5, 0), VP_LV_GOT_INVENTORY);

	fake_inventory(&f, 77, 7, 9, 0);	/* seq 77 was never asked */
	ck_assert_uint_eq(answers_take(&f.d), 0);
	ck_assert_uint_eq(f.d.lv.late_answers, 4);
	check_vcpu_on(&f, 0, 3);

	/* a header whose length is not the datagram's */
	ck_assert_int_eq(send(f.fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	/* ... and the channel goes on: the next datagram is taken (late) */
	fake_send(&f, VP_MSG_INV_END, 1, 0, &e, sizeof(e), NULL, 0);
	ck_assert_uint_eq(answers_take(&f.d), 0);
	ck_assert_uint_eq(f.d.lv.bad_messages, 1);
	ck_assert_uint_eq(f.d.lv.late_answers, 5);
	ck_assert_int_eq(f.d.nvms, 1);
	check_vcpu_on(&f, 1, 5);
	fake_teardown(&f);
}
END_TEST

/* The results of APPLY @seq: APPLIED for pin 0, RETRY for pin 1. */
static void
fake_results(struct fake *f, uint32_t seq)
{
	struct vp_msg_result r[2] = {
		{ .id = 0, .result = VP_APPLY_APPLIED },
		{ .id = 1, .result = VP_APPLY_RETRY, .why = "fake RPC error" },
	};

	fake_send(f, VP_MSG_APPLY_RESULT, seq, 2, NULL, 0, r, sizeof(r));
}

/*
 * A batch of pins: each result is applied to its vCPU (the applied one
 * takes its new set, the failed one keeps its affinity and is counted),
 * and the next batch may go at once.  A snapshot and the results that
 * follow it in one take are both applied, in the order they came.
 */
START_TEST(test_pins_answered)
{
	struct fake f;
	const struct vp_vm *vm;
	struct vp_lv_pin *p;
	unsigned int got;
	uint32_t seq;
	int pu11, k;

	fake_setup(&f);
	fake_connected(&f);
	ck_assert_uint_eq(refresh(&f, 3, 5, 0), VP_LV_GOT_INVENTORY);
	vm = inventory_vm_by_uuid(&f.d, uuid1);
	pu11 = domain_pu_of_cpu(f.d.topo, 11);
	for (k = 0; k < 2; k++) {
		p = &f.d.lv.pin[k];
		memset(p, 0, sizeof(*p));
		memcpy(p->uuid, uuid1, VP_UUID_LEN);
		p->pid = vm->pid;
		p->vcpu = k;
		p->home = pu11;
		cpuset_set(&p->set, pu11);
		f.d.vm[0].vcpu[k].inflight = true;
	}
	ck_assert_int_eq(libvirt_apply(&f.d, 2), 0);
	ck_assert(libvirt_applying(&f.d));
	ck_assert_int_eq(libvirt_apply(&f.d, 2), -EBUSY);
	seq = fake_request(&f, VP_MSG_APPLY);

	/* a refresh answered first, the pins after, one take for both */
	ck_assert_int_eq(libvirt_refresh(&f.d, false), 0);
	fake_inventory(&f, fake_request(&f, VP_MSG_REFRESH), 3, 5, 0);
	fake_results(&f, seq);
	got = answers_take(&f.d);
	ck_assert_uint_eq(got, VP_LV_GOT_INVENTORY | VP_LV_GOT_PINS);
	ck_assert(!libvirt_applying(&f.d));
	vm = inventory_vm_by_uuid(&f.d, uuid1);
	ck_assert(!vm->vcpu[0].inflight && !vm->vcpu[1].inflight);
	ck_assert(cpuset_test(&vm->vcpu[0].affinity, pu11));
	ck_assert_int_eq(vm->vcpu[0].placed_home, pu11);
	check_vcpu_on(&f, 1, 5);
	ck_assert_uint_eq(f.d.c.pins_failed, 1);
	/* the next batch is not held up */
	ck_assert_int_eq(libvirt_apply(&f.d, 1), 0);
	fake_teardown(&f);
}
END_TEST

Suite *
answers_suite(void)
{
	Suite *s = suite_create("answers");
	TCase *tc = tcase_create("fake worker");

	tcase_add_test(tc, test_snapshot_whole_or_not);
	tcase_add_test(tc, test_late_and_bad);
	tcase_add_test(tc, test_pins_answered);
	suite_add_tcase(s, tc);
	return s;
}
