-- A request for a full pass becomes a counter compared with the pass that serves it, instead of a flag
-- any finishing full run cleared (which lost a request made while that run was open).
-- AlterTable
ALTER TABLE "sync_runs" ADD COLUMN     "full_resync_requests" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "full_resync_requests_served" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "run_full_resync_requests" INTEGER;

-- A flag still set is one request not yet served (an open run, started before it, serves nothing of it).
UPDATE "sync_runs" SET "full_resync_requests" = 1 WHERE "full_resync_requested";

ALTER TABLE "sync_runs" DROP COLUMN "full_resync_requested";
