-- AlterTable
ALTER TABLE "usage_records" ADD COLUMN     "billed_unit" TEXT,
ADD COLUMN     "billed_units" DOUBLE PRECISION;
