-- AlterTable
ALTER TABLE "tool_call_records" ADD COLUMN     "meter_epoch" UUID;

-- CreateIndex
CREATE INDEX "tool_call_records_organization_id_occurred_at_idx" ON "tool_call_records"("organization_id", "occurred_at");
