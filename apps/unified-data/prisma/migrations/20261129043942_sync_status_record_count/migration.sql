-- Record counts per model, taken when a sync finishes, so the console's overview of many accounts never counts records on read.
-- AlterTable
ALTER TABLE "sync_statuses" ADD COLUMN     "record_count" INTEGER;
