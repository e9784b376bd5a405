-- AlterTable
ALTER TABLE "usage_records" ADD COLUMN     "web_search_requests" INTEGER NOT NULL DEFAULT 0;
