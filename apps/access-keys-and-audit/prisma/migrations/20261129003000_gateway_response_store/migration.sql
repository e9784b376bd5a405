-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "gateway_response_store" BOOLEAN;
