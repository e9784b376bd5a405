-- Tool-call records past retention move to an archive instead of being dropped (issue 28; the spec: "log
-- endpoints allow older events to be pulled past the retention window"), as the audit log's events do
-- (access-keys-and-audit, audit_event_archive). The archive is partitioned by day like tool_call_records
-- with the same columns IN THE SAME ORDER: the sweep detaches a day's partition from tool_call_records and
-- attaches it here as is (no row copied), and moves single rows (an organization's shorter retention, the
-- rest of a day, late records in the DEFAULT partition) with INSERT ... SELECT *, which matches columns by
-- position. The same indexes as the live table, so an attached partition's indexes are adopted, not rebuilt.
-- No statement trigger here: the daily usage counted these calls when they were first stored.

-- CreateTable
CREATE TABLE "tool_call_record_archive" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "tool_pack_id" UUID NOT NULL,
    "registered_user_id" UUID NOT NULL,
    "access_key_id" UUID NOT NULL,
    "tool_name" VARCHAR(255) NOT NULL,
    "connector_slug" VARCHAR(255) NOT NULL,
    "status" "ToolCallStatus" NOT NULL,
    "error_code" VARCHAR(64),
    "duration_ms" INTEGER NOT NULL,
    "credits" INTEGER NOT NULL,
    "billing_cycle" CHAR(7) NOT NULL,
    "overage" BOOLEAN NOT NULL DEFAULT false,
    "detections" JSONB NOT NULL DEFAULT '[]',
    "occurred_at" TIMESTAMPTZ(6) NOT NULL,
    "meter_epoch" UUID,
    "arguments" JSONB,
    "result" JSONB,

    CONSTRAINT "tool_call_record_archive_pkey" PRIMARY KEY ("id","occurred_at")
) PARTITION BY RANGE ("occurred_at");

-- Rows archived one by one wait here until their day's partition joins the archive.
CREATE TABLE "tool_call_record_archive_default" PARTITION OF "tool_call_record_archive" DEFAULT;

-- CreateIndex
CREATE INDEX "tool_call_record_archive_organization_id_environment_occurr_idx" ON "tool_call_record_archive"("organization_id", "environment", "occurred_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "tool_call_record_archive_organization_id_environment_regist_idx" ON "tool_call_record_archive"("organization_id", "environment", "registered_user_id", "occurred_at" DESC);

-- CreateIndex
CREATE INDEX "tool_call_record_archive_organization_id_billing_cycle_idx" ON "tool_call_record_archive"("organization_id", "billing_cycle");

-- CreateIndex
CREATE INDEX "tool_call_record_archive_organization_id_occurred_at_idx" ON "tool_call_record_archive"("organization_id", "occurred_at");

-- CreateIndex
CREATE INDEX "tool_call_record_archive_occurred_at_idx" ON "tool_call_record_archive"("occurred_at");
