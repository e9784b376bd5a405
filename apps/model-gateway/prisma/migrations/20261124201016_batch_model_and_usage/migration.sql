-- AlterTable
ALTER TABLE "batches" ADD COLUMN     "model" TEXT,
ADD COLUMN     "usage" JSONB;
