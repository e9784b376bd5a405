-- AlterTable
ALTER TABLE "linked_accounts" ADD COLUMN     "idle_paused_at" TIMESTAMPTZ(6),
ADD COLUMN     "last_api_request_at" TIMESTAMPTZ(6);
