-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "mcp_allowed_origins" TEXT[] DEFAULT ARRAY[]::TEXT[];
