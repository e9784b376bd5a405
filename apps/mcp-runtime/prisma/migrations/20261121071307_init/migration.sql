-- CreateEnum
CREATE TYPE "Environment" AS ENUM ('production', 'test');

-- CreateEnum
CREATE TYPE "RuleDetector" AS ENUM ('EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'US_SSN', 'IBAN', 'IP_ADDRESS', 'SECRET', 'CUSTOM');

-- CreateEnum
CREATE TYPE "RuleDirection" AS ENUM ('inbound', 'outbound', 'both');

-- CreateEnum
CREATE TYPE "RuleAction" AS ENUM ('allow', 'redact', 'block');

-- CreateEnum
CREATE TYPE "ToolCallStatus" AS ENUM ('success', 'error', 'blocked');

-- CreateTable
CREATE TABLE "security_rules" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "detector" "RuleDetector" NOT NULL,
    "pattern" VARCHAR(500),
    "flags" VARCHAR(8),
    "label" VARCHAR(40),
    "direction" "RuleDirection" NOT NULL,
    "action" "RuleAction" NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "security_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "security_rule_overrides" (
    "rule_id" UUID NOT NULL,
    "tool_pack_id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "action" "RuleAction",
    "enabled" BOOLEAN,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "security_rule_overrides_pkey" PRIMARY KEY ("rule_id","tool_pack_id")
);

-- CreateTable
CREATE TABLE "tool_call_records" (
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

    CONSTRAINT "tool_call_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deleted_registered_users" (
    "registered_user_id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "deleted_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "deleted_registered_users_pkey" PRIMARY KEY ("registered_user_id")
);

-- CreateTable
CREATE TABLE "event_outbox" (
    "id" UUID NOT NULL,
    "queue" TEXT NOT NULL,
    "job_name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "security_rules_organization_id_environment_created_at_id_idx" ON "security_rules"("organization_id", "environment", "created_at", "id");

-- CreateIndex
CREATE INDEX "security_rule_overrides_organization_id_environment_tool_pa_idx" ON "security_rule_overrides"("organization_id", "environment", "tool_pack_id");

-- CreateIndex
CREATE INDEX "tool_call_records_organization_id_environment_occurred_at_i_idx" ON "tool_call_records"("organization_id", "environment", "occurred_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "tool_call_records_organization_id_environment_registered_us_idx" ON "tool_call_records"("organization_id", "environment", "registered_user_id", "occurred_at" DESC);

-- CreateIndex
CREATE INDEX "tool_call_records_organization_id_billing_cycle_idx" ON "tool_call_records"("organization_id", "billing_cycle");

-- CreateIndex
CREATE INDEX "tool_call_records_occurred_at_idx" ON "tool_call_records"("occurred_at");

-- CreateIndex
CREATE INDEX "deleted_registered_users_deleted_at_idx" ON "deleted_registered_users"("deleted_at");

-- CreateIndex
CREATE INDEX "event_outbox_next_attempt_at_idx" ON "event_outbox"("next_attempt_at");

-- AddForeignKey
ALTER TABLE "security_rule_overrides" ADD CONSTRAINT "security_rule_overrides_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "security_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
