// Stats without a waiting thread: the completion's callback hands the
// result to Go by id, as copies do (copyfrom.cc).

#include "radoscp.h"

#include <cerrno>
#include <ctime>
#include <memory>
#include <string>
#include <rados/librados.hpp>

namespace {

// One stat in flight: owned by the submission until aio_operate has taken
// it, then by on_stat_complete, which frees it.
struct radoscp_stat {
	librados::ObjectReadOperation op;
	librados::AioCompletion *completion = nullptr;
	uint64_t id = 0;
	uint64_t size = 0;
	struct timespec mtime = {};
	int rval = 0;
	~radoscp_stat()
	{
		if (completion != nullptr)
			completion->release();
	}
};

// on_stat_complete runs on a librados finisher thread when the OSD has
// answered; the object version is the reply's, as get_version64 gives it
// for the synchronous stat (radoscp_stat_version).
void on_stat_complete(librados::completion_t, void *arg)
{
	auto *s = static_cast<radoscp_stat *>(arg);
	int r = s->completion->get_return_value();
	if (r >= 0)
		r = s->rval;
	uint64_t version = s->completion->get_version64();
	uint64_t id = s->id, size = s->size;
	int64_t sec = s->mtime.tv_sec, nsec = s->mtime.tv_nsec;
	delete s;
	radoscpStatDone(id, r, size, sec, nsec, version);
}

} // namespace

extern "C" int radoscp_stat_submit(rados_ioctx_t io, const char *oid,
				   size_t oid_len, uint64_t id)
{
	try {
		librados::IoCtx ioctx;
		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		std::unique_ptr<radoscp_stat> s(new radoscp_stat);
		s->id = id;
		s->op.stat2(&s->size, &s->mtime, &s->rval);
		s->completion = librados::Rados::aio_create_completion(s.get(), on_stat_complete);
		// As for copies: once aio_operate has queued the op, the
		// callback owns s and may already have freed it.
		int r = ioctx.aio_operate(std::string(oid, oid_len), s->completion, &s->op, nullptr);
		if (r < 0)
			return r;
		s.release();
		return 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}
