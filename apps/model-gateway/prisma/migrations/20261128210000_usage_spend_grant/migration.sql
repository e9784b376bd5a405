-- AlterTable
ALTER TABLE "usage_records" ADD COLUMN     "spend_grant" TEXT;
